-- The total rollup (013) keeps the seconds of events WITHOUT a name only; a named event's second is
-- in the per-name rollup (071, view 094) alone, and a named run's total is its names' rows merged
-- when read (src/request-seconds.ts). Before, every named event was sketched into both tables: two
-- rollup parts per insert, and ingest with names ran at ~0.7x the events/s of ingest without
-- (bench/name-rollup-variants.bench.ts). Four statements, applied together and recorded once all
-- are done; a start-up killed halfway runs them all again and ends in the same state (the delete
-- and the rebuild are of the same rows, and nothing writes before the migrations finish).
-- 1-2: the view 093 replaced by the same SELECT over the rows without a name.
DROP VIEW IF EXISTS kb_request_seconds_from_events_mv_v1;
CREATE MATERIALIZED VIEW IF NOT EXISTS kb_request_seconds_unnamed_mv_v1 TO kb_request_seconds_v1 AS
SELECT
    run_id,
    level,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_request_events_v1
WHERE name = ''
GROUP BY run_id, level, second;
-- 3-4: the runs stored with names (every run with per-name rows) lose their total rows, which
-- counted their named events a second time, and get back those of their events without a name
-- (a run can mix both), rebuilt from the raw rows by the view's SELECT.
DELETE FROM kb_request_seconds_v1 WHERE run_id IN (SELECT DISTINCT run_id FROM kb_request_name_seconds_v1);
INSERT INTO kb_request_seconds_v1
SETTINGS insert_deduplicate = 0
SELECT
    run_id,
    level,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_request_events_v1
WHERE name = '' AND run_id IN (SELECT DISTINCT run_id FROM kb_request_name_seconds_v1)
GROUP BY run_id, level, second
