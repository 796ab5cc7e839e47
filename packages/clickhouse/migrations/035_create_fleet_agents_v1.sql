-- The agents that joined a run driven by several agents (kneeboard agent --join), with the clock
-- offset each measured to the API (NTP-style, the exchange with the smallest round trip): event
-- times are shifted by it, so this is what a reader needs to judge their alignment.
-- A leave or a loss inserts a newer version of the row.
CREATE TABLE IF NOT EXISTS kb_fleet_agents_v1
(
    run_id          UUID,
    agent_id        String,
    host            String,
    cores           Nullable(UInt32),
    clock_offset_ms Float64,
    clock_rtt_ms    Float64,
    joined_at_ms    Float64,
    state           LowCardinality(String),
    recorded        Nullable(UInt64),
    version         UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, agent_id)
