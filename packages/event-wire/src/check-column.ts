import type { IssueList } from './batch-error.ts';
import type { EventColumns } from './columns.ts';
import { SERVER_TIME_TOLERANCE_MS, SERVER_TIME_TOLERANCE_RATIO, serverTimeLimit, type ColumnRule, type EventBounds } from './rules.ts';

/**
 * Checks a whole column against its rule in one tight loop; only entries that fail take the slow
 * path that words the issue. NaN marks null: allowed in nullable columns, an issue elsewhere.
 */
export function checkColumn(values: ArrayLike<number>, rule: ColumnRule, name: string, issues: IssueList): void {
  const { min, max, minExclusive, integer, nullable } = rule;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v >= min && v <= max && !(minExclusive && v === min) && (!integer || Math.floor(v) === v)) continue;
    if (v !== v) {
      if (nullable) continue;
      issues.add(`${name}[${i}]`, 'must be a number (not null, not NaN)');
    } else if (!Number.isFinite(v)) {
      issues.add(`${name}[${i}]`, 'must be a finite number');
    } else if (v > max || v < min || (minExclusive && v === min)) {
      issues.add(`${name}[${i}]`, rule.describe(v));
    } else {
      issues.add(`${name}[${i}]`, 'must be an integer');
    }
    if (issues.full) return;
  }
}

/**
 * The rules between columns, once every column passed its own: compute_ms and queue_ms within
 * their request's latency (see serverTimeLimit; NaN, a null, compares false and passes), and every
 * level one of the run's steps when the caller knows them. One loop each; a batch is nearly always
 * of one level, so the set is asked only when the level changes.
 */
export function checkEvents(c: Omit<EventColumns, 'status'>, bounds: EventBounds, issues: IssueList): void {
  const { latency_ms: latency, compute_ms: compute, queue_ms: queue } = c;
  const ratio = 1 + SERVER_TIME_TOLERANCE_RATIO;
  // Both parts in one pass, the limit inlined (serverTimeLimit says the same): this loop runs over every event.
  const above = SERVER_TIME_TOLERANCE_MS / SERVER_TIME_TOLERANCE_RATIO;
  for (let i = 0; i < c.length; i++) {
    const l = latency[i]!;
    const limit = l > above ? l * ratio : l + SERVER_TIME_TOLERANCE_MS;
    if (!(compute[i]! > limit) && !(queue[i]! > limit)) continue;
    for (const [name, part] of [['compute_ms', compute], ['queue_ms', queue]] as const) {
      if (part[i]! > serverTimeLimit(l)) {
        issues.add(`${name}[${i}]`, `${part[i]} ms is larger than the request's latency_ms (${l} ms): a part of a request cannot take longer than the request (tolerance 1 ms or 1%)`);
      }
    }
    if (issues.full) return;
  }
  const levels = bounds.levels;
  if (levels === undefined || levels.size === 0) return;
  let known = Number.NaN;
  for (let i = 0; i < c.length; i++) {
    const v = c.level[i]!;
    if (v === known) continue;
    if (levels.has(v)) {
      known = v;
      continue;
    }
    const list = [...levels].sort((a, b) => a - b);
    issues.add(`level[${i}]`, `no step of the run has level ${v} (its steps: ${list.slice(0, 20).join(', ')}${list.length > 20 ? ', …' : ''}); post the step window before its events`);
    if (issues.full) return;
  }
}
