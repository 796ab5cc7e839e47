/**
 * Every run's per-second rollup rows, named events or not, to read as a table:
 * `FROM ${REQUEST_SECONDS} AS r`. Since migration 100, kb_request_seconds_v1 holds the seconds of
 * events without a name and kb_request_name_seconds_v1 those of named events, each event sketched
 * once: a named run's total is its names' rows, merged when read. (Sketching named events into both
 * tables cost a second rollup part per insert: ingest with names at ~0.7x the events/s of ingest
 * without; see bench/name-rollup-variants.bench.ts.)
 *
 * The two tables' rows of one (run, level, second) add up like two parts of one table, which
 * readers of an AggregatingMergeTree must merge anyway (sum the counts, -Merge the states). A
 * filter on run_id, level or second reaches each table's primary key through the UNION ALL
 * (checked with EXPLAIN indexes = 1 in test/request-seconds.int.test.ts). Writers name the tables.
 */
const COLUMNS = 'run_id, level, second, requests, ok, last_ts_ms, ok_latency_sum, compute_n, queue_n, other_n, latency, compute, queue, other';

export const REQUEST_SECONDS = `(SELECT ${COLUMNS} FROM kb_request_seconds_v1 UNION ALL SELECT ${COLUMNS} FROM kb_request_name_seconds_v1)`;
