-- The rollup: one row per (run, level, second) a request completed in, kept up to date by the
-- materialized view kb_request_seconds_mv_v1 as batches arrive. Counts (per percentile series
-- too, so a query can ask a sketch for an exact rank), the newest timestamp and the latency sum
-- are exact; percentiles are DDSketch states (quantilesDD, relative accuracy 0.005: the value at
-- a rank within 0.5%), merged across seconds, levels and shards with -Merge, never averaged. The
-- quantile levels in a state's type do not matter: -Merge reads any levels from any state.
-- States hold nanoseconds (ms × 1e6): quantilesDD is 3× less accurate below 1 (measured on 26.7).
-- Raw rows in kb_requests_v1 stay for exact answers.
-- The deduplication window lets a replayed batch's rollup block be dropped like its raw block.
CREATE TABLE IF NOT EXISTS kb_request_seconds_v1
(
    run_id         UUID,
    level          Float64,
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
ORDER BY (run_id, level, second)
SETTINGS non_replicated_deduplication_window = 10000
