/**
 * Which requests count as successes, in one place: a stored status of 1–399. Status 0 is a request
 * that got no answer (connect error, reset, timeout); 400 and above are answers that refuse or fail.
 * Successes make QPS and latency percentiles, so fast failures cannot flatter them; everything else
 * is an error.
 *
 * The API's SQL (clickhouse `successStatusSql`), the agent's live table, probes and importers, and
 * the level detail's status table all read this; the two frozen rollup migrations (014, 015) are
 * checked against it by a test. The Rust engine has no copy: it reports raw statuses only.
 */
export const SUCCESS_STATUS = { min: 1, max: 399 } as const;

export function isSuccessStatus(status: number): boolean {
  return status >= SUCCESS_STATUS.min && status <= SUCCESS_STATUS.max;
}
