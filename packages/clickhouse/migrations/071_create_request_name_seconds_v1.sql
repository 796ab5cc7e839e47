-- The rollup per name: one row per (run, level, name, second), the columns and sketches of
-- kb_request_seconds_v1 (013), for the requests that have a name. The total rollup stays as it
-- is, so a run's curve, and every run without names, reads exactly what it read before; a
-- name's curve reads these rows (and the raw rows of its windows' edge seconds, like the total).
CREATE TABLE IF NOT EXISTS kb_request_name_seconds_v1
(
    run_id         UUID,
    level          Float64,
    name           LowCardinality(String),
    second         Int64,
    requests       SimpleAggregateFunction(sum, UInt64),
    ok             SimpleAggregateFunction(sum, UInt64),
    last_ts_ms     SimpleAggregateFunction(max, Float64),
    ok_latency_sum SimpleAggregateFunction(sum, Float64),
    compute_n      SimpleAggregateFunction(sum, UInt64),
    queue_n        SimpleAggregateFunction(sum, UInt64),
    other_n        SimpleAggregateFunction(sum, UInt64),
    latency        AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    compute        AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    queue          AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    other          AggregateFunction(quantilesDD(0.005, 0.5), Float64)
)
ENGINE = AggregatingMergeTree
ORDER BY (run_id, level, name, second)
SETTINGS non_replicated_deduplication_window = 10000
