import type { AnalysisPoint } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { at, fmtShare } from './format.ts';

/** A level whose window has closed and which served at least one request, sorted by level. */
export type UsablePoint = AnalysisPoint;

export interface Selection {
  points: UsablePoint[];
  warnings: string[];
}

function list(parameter: string, levels: readonly number[]): string {
  const [first, ...rest] = levels;
  return first === undefined ? '' : [at(parameter, first), ...rest.map(formatLevel)].join(', ');
}

/**
 * Keeps the levels a fit can trust. An open window's QPS is still settling, and a level with no
 * successful request has no throughput to fit (a zero would read as "load kills the server"
 * when it may only mean "nothing finished yet").
 */
export function selectPoints(curve: readonly AnalysisPoint[], parameter: string): Selection {
  const warnings: string[] = [];
  const inProgress = curve.filter((p) => p.in_progress).map((p) => p.level);
  const done = curve.filter((p) => !p.in_progress && Number.isFinite(p.level) && p.level > 0);
  const empty = done.filter((p) => !(Number.isFinite(p.qps) && p.qps > 0)).map((p) => p.level);
  const points = done.filter((p) => Number.isFinite(p.qps) && p.qps > 0).sort((a, b) => a.level - b.level);

  if (inProgress.length > 0) {
    warnings.push(`In-progress levels ignored until their window closes: ${list(parameter, inProgress)}.`);
  }
  if (empty.length > 0) {
    warnings.push(`Levels with no successful requests left out of the fit: ${list(parameter, empty)}.`);
  }
  const withErrors = done.filter((p) => p.errors > 0 && p.requests > 0);
  if (withErrors.length > 0) {
    const detail = withErrors
      .map((p, i) => `${i === 0 ? at(parameter, p.level) : formatLevel(p.level)} (${fmtShare(p.errors / p.requests)})`)
      .join(', ');
    warnings.push(`Requests failed at ${detail}; QPS and latency count successful requests only.`);
  }
  return { points, warnings };
}
