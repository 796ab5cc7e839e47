-- A load level's time window, in epoch milliseconds like the request rows it selects.
-- The agent posts a step when it starts (ended_at_ms NULL) and again when it ends; the newest wins.
CREATE TABLE IF NOT EXISTS kb_steps_v1
(
    run_id          UUID,
    level           Float64,
    started_at_ms   Float64,
    measure_from_ms Float64,
    ended_at_ms     Nullable(Float64),
    version         UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, level)
