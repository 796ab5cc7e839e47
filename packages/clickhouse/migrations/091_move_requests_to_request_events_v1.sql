-- Moves every request stored in kb_requests_v1 into kb_request_events_v1, rounded to the µs (as
-- the ingest does: floor(ms × 1000 + 0.5)). Two statements, applied together and recorded once
-- both are done, so a start-up killed halfway runs both again: the first empties what a cut-short
-- copy left (nothing else writes here before the migrations finish — the API migrates before it
-- listens, and the views feeding the rollups from this table come after, in 093), the second
-- copies again. kb_requests_v1 is emptied only by 095, once this one is recorded. The rollups are
-- not touched: their rows were computed from these very requests.
TRUNCATE TABLE IF EXISTS kb_request_events_v1;
INSERT INTO kb_request_events_v1 (run_id, level, agent_id, ts_us, latency_us, compute_us, queue_us, status, name)
SETTINGS insert_deduplicate = 0
SELECT
    run_id,
    level,
    agent_id,
    toInt64(floor(ts_ms * 1000 + 0.5)),
    toUInt64(floor(latency_ms * 1000 + 0.5)),
    toUInt64(floor(compute_ms * 1000 + 0.5)),
    toUInt64(floor(queue_ms * 1000 + 0.5)),
    status,
    name
FROM kb_requests_v1
