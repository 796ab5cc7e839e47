-- When each agent of a fleet plan was last heard from (a heartbeat, a poll for its next step), on
-- the API's clock: what the silence rule reads. Kept apart from kb_fleet_log_v1 so the facts a
-- replica folds stay few; the newest row of an agent is its last sign of life.
CREATE TABLE IF NOT EXISTS kb_fleet_seen_v1
(
    run_id     UUID,
    agent_id   String,
    seen_at_ms Float64
)
ENGINE = ReplacingMergeTree(seen_at_ms)
ORDER BY (run_id, agent_id)
