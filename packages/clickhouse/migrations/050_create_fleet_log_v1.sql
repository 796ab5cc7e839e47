-- The plan of a run driven by several agents, as the facts that made it: the plan, steps added,
-- joins, reports, leaves, losses, API restarts, effects written (kb_fleet_* rows, step windows).
-- Append-only: every API replica reads a run's facts and folds them, in (at_ms, id) order, into
-- the same state (apps/api/src/services/fleet-machine.ts), so any replica serves the coordinator
-- and the agents, and a restarted API resumes the plan. `body` is the fact as JSON.
CREATE TABLE IF NOT EXISTS kb_fleet_log_v1
(
    run_id UUID,
    at_ms  Float64,
    id     String,
    kind   LowCardinality(String),
    body   String
)
ENGINE = MergeTree
ORDER BY (run_id, at_ms, id)
