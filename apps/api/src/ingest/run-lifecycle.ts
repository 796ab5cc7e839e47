import { EVENT_TIME_SLACK_MS } from '@kneeboard/contracts';
import type { RunSpan } from '@kneeboard/clickhouse';
import type { EventBounds } from '@kneeboard/event-wire';
import { HttpError } from '../errors.ts';

/** Earliest plausible event time when a run has no steps yet: 2000-01-01. */
const EPOCH_FLOOR_MS = 946_684_800_000;

/**
 * Whether a finished run still takes writes of kind `what`: a running run always does; a finished
 * or aborted one for `graceMs` after its finish (a spooling agent's late batches), then 409.
 */
export function refuseLateWrite(span: RunSpan, now: number, graceMs: number, what: string): HttpError | null {
  if (span.status === 'running' || span.finished_at === null) return null;
  const until = span.finished_at + graceMs;
  if (now <= until) return null;
  return new HttpError(
    409,
    `run is ${span.status} since ${new Date(span.finished_at).toISOString()}; ${what} were accepted until ${new Date(until).toISOString()}`,
    'id',
  );
}

/**
 * The span an event's completion time must fall in: from the run's first step start to now (while
 * it takes data) or its last step end and finish, widened by EVENT_TIME_SLACK_MS for clock drift
 * between load hosts and the API. The steps, not the creation time, set the lower end: an imported
 * run has steps in the past. Before any step is posted, only "not in the future" holds.
 */
export function eventBounds(span: RunSpan, now: number): EventBounds {
  const from = span.steps_from === null ? EPOCH_FLOOR_MS : span.steps_from - EVENT_TIME_SLACK_MS;
  const live = span.status === 'running' || span.open_step;
  const to = Math.max(live ? now : (span.finished_at ?? now), span.steps_to ?? 0, span.created_at) + EVENT_TIME_SLACK_MS;
  // A run with steps takes events only at their levels; before its first step, any level (as any time).
  return { tsMin: from, tsMax: to, ...(span.levels.length > 0 ? { levels: new Set(span.levels) } : {}) };
}
