-- One row per request. Percentiles are computed from these raw rows, never from pre-averaged data.
-- The deduplication window makes a retried insert with the same insert_deduplication_token
-- (the batch id) a no-op; kb_batches_v1 is the durable record beyond the window.
CREATE TABLE IF NOT EXISTS kb_requests_v1
(
    run_id     UUID,
    level      Float64,
    agent_id   LowCardinality(String),
    ts_ms      Float64,
    latency_ms Float64,
    compute_ms Nullable(Float64),
    queue_ms   Nullable(Float64),
    status     UInt16
)
ENGINE = MergeTree
ORDER BY (run_id, level, ts_ms)
SETTINGS non_replicated_deduplication_window = 10000
