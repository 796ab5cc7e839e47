import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { CostComparison, FigureChange, LevelComparison, LevelCostChange, RunCost } from '@kneeboard/contracts';
import { formatChangeWithInterval, formatLevel } from '@kneeboard/contracts/figures';
import { costRatio } from '../cost-scaling.ts';
import { RUN_TO_RUN_FLOOR } from './run-spread.ts';

/** The confidence of a CPU change's interval (two-sided), stated in the note. */
export const COST_CHANGE_CONFIDENCE = 0.95;

const logMean = (xs: readonly number[]) => xs.reduce((a, x) => a + Math.log(x), 0) / xs.length;
const logVar = (xs: readonly number[]) => {
  const m = logMean(xs);
  return xs.reduce((a, x) => a + (Math.log(x) - m) ** 2, 0) / (xs.length - 1);
};

/**
 * Cores used, base against head at one level. With two or more runs a side the interval is
 * Student's t on the difference of the sides' mean log cores (each side's spread floored at the
 * comparison's ±1%: no box repeats a load test better); with fewer, no interval — one run's CPU
 * reading says nothing about the next run's.
 */
function coresChange(base: readonly number[], head: readonly number[]): FigureChange {
  // A geometric mean, or the one reading itself (exactly as read, not exp(log())).
  const mean = (xs: readonly number[]) => (xs.length === 1 ? (xs[0] as number) : Math.exp(logMean(xs)));
  const [b, h] = [mean(base), mean(head)];
  const change = h / b - 1;
  if (base.length < 2 || head.length < 2) return { base: b, head: h, change, ci_low: null, ci_high: null };
  const floor = RUN_TO_RUN_FLOOR ** 2;
  const se = Math.sqrt(Math.max(logVar(base), floor) / base.length + Math.max(logVar(head), floor) / head.length);
  const t = tQuantile(1 - (1 - COST_CHANGE_CONFIDENCE) / 2, base.length + head.length - 2);
  const diff = Math.log(h / b);
  return { base: b, head: h, change, ci_low: Math.exp(diff - t * se) - 1, ci_high: Math.exp(diff + t * se) - 1 };
}

/** Each run's cores used at a level, where it read a positive CPU rate there. */
function coresAt(costs: readonly RunCost[], level: number): number[] {
  return costs.flatMap((c) => {
    const used = c.levels.find((l) => l.level === level)?.cores_used;
    return used != null && used > 0 ? [used] : [];
  });
}

/** "at 64" for concurrency (seed 002's sentence), "at rate 200" for any other parameter, as the cost verdict says it. */
const atLevel = (parameter: string, level: number) => `at ${parameter === 'concurrency' ? '' : `${parameter} `}${formatLevel(level)}`;

/**
 * What each level's change cost the server, base against one head (issue 28): at every level
 * where both sides read CPU, the level's QPS change (the comparison's own delta, interval
 * included) against the change in cores used, as one sentence — "+8% QPS for +31% CPU at 64".
 * QPS per core follows from the two. Null when no level has CPU on both sides: runs without server
 * metrics compare exactly as before.
 */
export function compareCost(base: readonly RunCost[], head: readonly RunCost[], levels: readonly LevelComparison[], parameter: string): CostComparison | null {
  const out: LevelCostChange[] = [];
  let repeats = false;
  for (const l of levels) {
    if (!l.in_base || !l.in_head) continue;
    const [b, h] = [coresAt(base, l.level), coresAt(head, l.level)];
    if (b.length === 0 || h.length === 0) continue;
    const cores = coresChange(b, h);
    if (cores.ci_low !== null) repeats = true;
    const qps: FigureChange = { base: l.qps.base, head: l.qps.head, change: l.qps.change, ci_low: l.qps.ci_low, ci_high: l.qps.ci_high };
    const perCore = (x: number | null, c: number | null) => (x === null || c === null || !(c > 0) ? null : x / c);
    // What the added (or saved) CPU bought, by the one rule a run's own scaling sentence uses too.
    const ratio = costRatio({ qps: qps.base, cores_used: cores.base }, { qps: qps.head, cores_used: cores.head });
    const qpc: FigureChange = { base: perCore(qps.base, cores.base), head: perCore(qps.head, cores.head), change: ratio ? ratio.per_core - 1 : null, ci_low: null, ci_high: null };
    const notComparable = l.flags.length > 0;
    const sentence = `${formatChangeWithInterval(qps.change, qps.ci_low, qps.ci_high)} QPS for ${formatChangeWithInterval(cores.change, cores.ci_low, cores.ci_high)} CPU ${atLevel(parameter, l.level)}${notComparable ? ' (not comparable: an agent was the limit)' : ''}`;
    out.push({ level: l.level, qps, cores_used: cores, qps_per_core: qpc, not_comparable: notComparable, sentence });
  }
  if (out.length === 0) return null;
  const [nb, nh] = [base.length, head.length];
  const note = repeats
    ? `CPU: cores used over each level's measured window; intervals (${Math.round(COST_CHANGE_CONFIDENCE * 100)}%) from the ${nb} base and ${nh} head runs' spread, where both sides have two or more; QPS: the level's own change and interval.`
    : `CPU: cores used over each level's measured window; no interval: single run (${nb} base and ${nh} head) — one reading of the CPU says nothing about the next run's; QPS: the level's own change and interval.`;
  return { levels: out, basis: repeats ? 'repeats' : 'single run', note };
}
