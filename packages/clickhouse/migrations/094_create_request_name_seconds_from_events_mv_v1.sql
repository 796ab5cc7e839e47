-- Feeds the per-name rollup (071) from every insert into kb_request_events_v1, in place of 072
-- (dropped by 092): the same SELECT over the table's ALIAS columns, as 093 for the total rollup.
CREATE MATERIALIZED VIEW IF NOT EXISTS kb_request_name_seconds_from_events_mv_v1 TO kb_request_name_seconds_v1 AS
SELECT
    run_id,
    level,
    name,
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
WHERE name != ''
GROUP BY run_id, level, name, second
