-- What the server spent during a run (issue 28): one value per metric per second of each step,
-- read by the agent from the target's /metrics, /proc or a cgroup. `fn` says how the value reads:
-- rate (a counter's increase per second over the second ending here: CPU-seconds → cores used),
-- mean or max (a gauge). One source per run: the key is (run, level, metric, second), so a second
-- agent's — or a retried — write of the same second replaces the first, never adds to it.
CREATE TABLE IF NOT EXISTS kb_server_metrics_v1
(
    run_id  UUID,
    level   Float64,
    metric  LowCardinality(String),
    second  UInt32,
    fn      LowCardinality(String),
    value   Float64,
    version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, level, metric, second)
