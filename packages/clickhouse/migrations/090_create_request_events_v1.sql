-- One row per request, as kb_requests_v1 (003, 070) held them, in a third of the bytes: times in
-- integer microseconds (values are rounded half up to the µs on the way in, so an exact
-- percentile moves by at most 0.5 µs, and a window edge by the same), with a codec per column
-- chosen by measurement (bench/raw-codecs.bench.ts: the same 2M events under each candidate, one
-- merged part, compressed bytes per event from system.parts_columns; `bench` = the scale benches'
-- evenly spaced events, `jittered` = exponential gaps, two agents, three names, 1% errors):
--   ts_us      Delta+ZSTD: 0.65 B/event jittered (DoubleDelta+ZSTD 0.81, ZSTD 0.98, LZ4 3.52;
--              Float64 ms 3.58). DoubleDelta wins only on the bench's evenly spaced times (0.01
--              against 0.39), which no agent sends.
--   latency_us T64+ZSTD: 2.04 (ZSTD 2.53, T64 2.14, LZ4 3.57, Float64 ms 4.46). UInt64, not
--              UInt32: a latency may be a day (8.64e10 µs); T64 keeps only the bits a block
--              uses, so UInt64 costs the same (2.05).
--   compute_us, queue_us  Nullable(UInt64) T64+ZSTD: 2.02 (a sentinel instead of NULL: 2.41, its
--              huge value widens T64's blocks; Nullable with ZSTD alone 2.36). The null map is
--              part of that figure.
--   status     ZSTD: 0.05 (T64+ZSTD 0.08, LZ4 0.11). level Delta+ZSTD: 0.01 (constant within the
--              sort order; LZ4 0.04). run_id ZSTD: 0.01 (LZ4 0.07). agent_id, name
--              LowCardinality+ZSTD: 0.20 and 0.26 (LZ4 0.50 and 0.55).
-- The ALIAS columns give every reader milliseconds as before (µs / 1000, Float64); filters on
-- ts_ms prune by the sort key like filters on ts_us. The deduplication window is kb_requests_v1's:
-- a retried insert with the same insert_deduplication_token (the batch id) is a no-op.
CREATE TABLE IF NOT EXISTS kb_request_events_v1
(
    run_id     UUID CODEC(ZSTD(1)),
    level      Float64 CODEC(Delta, ZSTD(1)),
    agent_id   LowCardinality(String) CODEC(ZSTD(1)),
    ts_us      Int64 CODEC(Delta, ZSTD(1)),
    latency_us UInt64 CODEC(T64, ZSTD(1)),
    compute_us Nullable(UInt64) CODEC(T64, ZSTD(1)),
    queue_us   Nullable(UInt64) CODEC(T64, ZSTD(1)),
    status     UInt16 CODEC(ZSTD(1)),
    name       LowCardinality(String) CODEC(ZSTD(1)),
    ts_ms      Float64 ALIAS ts_us / 1000,
    latency_ms Float64 ALIAS latency_us / 1000,
    compute_ms Nullable(Float64) ALIAS compute_us / 1000,
    queue_ms   Nullable(Float64) ALIAS queue_us / 1000
)
ENGINE = MergeTree
ORDER BY (run_id, level, ts_us)
SETTINGS non_replicated_deduplication_window = 10000
