-- One agent's part in one step of a run driven by several agents: its share of the load, the
-- barrier it was given and when it really started (both on the API's clock), how many requests it
-- recorded, its own health, and the outcome (ok; lost: no heartbeat; behind: started too late).
-- The step's own window and combined health stay in kb_steps_v1, like any other run's.
CREATE TABLE IF NOT EXISTS kb_fleet_steps_v1
(
    run_id            UUID,
    step_index        UInt32,
    level             Float64,
    agent_id          String,
    load              Float64,
    barrier_at_ms     Float64,
    started_at_ms     Nullable(Float64),
    ended_at_ms       Nullable(Float64),
    events            Nullable(UInt64),
    outcome           LowCardinality(String),
    generator_limited Nullable(UInt8),
    health_reason     Nullable(String),
    version           UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, step_index, agent_id)
