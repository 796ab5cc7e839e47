-- Per step of a run, where its server metrics came from (metrics-url, process, cgroup), the cores
-- the target may use when the source knows them (cgroup cpu.max, --cores), and what went wrong
-- while reading them ("cpu: no samples between 12:00:03 and 12:00:05 (HTTP 500)"). The newest
-- write of a step wins, like kb_server_metrics_v1's seconds.
CREATE TABLE IF NOT EXISTS kb_server_metric_steps_v1
(
    run_id          UUID,
    level           Float64,
    source          LowCardinality(String),
    cores_available Nullable(Float64),
    notes           Array(String),
    version         UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, level)
