import { successStatusSql } from './success-status.ts';
import { boundUsSql, RAW_EVENTS } from '../raw-events.ts';

/**
 * What "inside a step's measurement window" means, in one place: the curve, the runs list and the
 * comparison's samples must all count the same rows. Per (run, level), the request rows from
 * measure_from to ended_at (or to the newest row while the step runs). Bound parameter: run_ids.
 */
export const WINDOWED_REQUESTS = `
  FROM ${RAW_EVENTS} AS r
  INNER JOIN (
    SELECT run_id, level, measure_from_ms, ended_at_ms FROM kb_steps_v1 FINAL WHERE run_id IN {run_ids:Array(UUID)}
  ) AS s ON r.run_id = s.run_id AND r.level = s.level
  WHERE r.run_id IN {run_ids:Array(UUID)}
    AND r.ts_us >= ${boundUsSql('s.measure_from_ms')}
    AND (s.ended_at_ms IS NULL OR r.ts_us <= ${boundUsSql('assumeNotNull(s.ended_at_ms)')})`;

/** A successful request (the contracts' rule): latency percentiles are over these; everything else is an error. */
export const OK = successStatusSql('r.status');
