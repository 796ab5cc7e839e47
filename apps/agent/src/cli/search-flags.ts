import { InvalidArgumentError } from 'commander';
import type { SearchResult } from '../sweep/search-levels.ts';
import { formatLevel, formatQps } from '@kneeboard/contracts/figures';

/** Repeatable `--slo 'p99<=50ms'`: collected as typed; SweepConfig reads them with the contracts' parseSlos, which names a bad clause. */
export function collectSlo(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--precision 5%` or `0.05`: the share of the level the search narrows the bracket to. */
export function parsePrecision(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value);
  if (!m) throw new InvalidArgumentError(`"${value}" is not a precision: use a percentage such as 5% (or 0.05).`);
  return m[2] === '%' ? Number(m[1]) / 100 : Number(m[1]);
}

/** The search's answer in two lines for the terminal. */
export function searchSummary(search: SearchResult, parameter: string, slo: string): string {
  const { answer, observations } = search;
  const runs = observations.length;
  const levels = new Set(observations.map((o) => o.level)).size;
  const found = answer.capacity ? `${formatQps(answer.capacity.qps)} req/s at ${parameter} ${formatLevel(answer.capacity.level)}` : 'no level holds';
  const bracket = answer.bracket.breaks ? `; breaks at ${formatLevel(answer.bracket.breaks.level)}` : '';
  const unclear = answer.unclear.length > 0 ? `; unclear at ${answer.unclear.map(formatLevel).join(', ')}` : '';
  const skipped = answer.skipped.length > 0 ? `; generator-limited at ${answer.skipped.map(formatLevel).join(', ')}` : '';
  return `capacity within ${slo}: ${found}${bracket}${unclear}${skipped} (${levels} levels, ${runs} judged runs; ${answer.reason})`;
}
