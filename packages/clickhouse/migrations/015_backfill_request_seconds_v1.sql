-- Rolls up the rows stored before the view existed, so old runs answer from the rollup too.
-- Runs once, at start-up before the API takes batches (rows inserted between 014 and this
-- statement would be counted twice). No deduplication: this is one-off data, not a retried batch.
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
FROM kb_requests_v1
GROUP BY run_id, level, second
