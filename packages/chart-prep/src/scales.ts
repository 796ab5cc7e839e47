/**
 * Axis scales for load curves. Levels are usually swept geometrically (1, 2, 4 … 512), so a linear
 * x axis crowds the interesting low end into one corner; latency spans orders of magnitude past the
 * knee, so the y axis offers a log scale. A log axis cannot show zero or negative values: callers get
 * domains and ticks that only contain positive numbers, and values that cannot be drawn are gaps.
 */

export type ScaleKind = 'linear' | 'log';

/** A level range wider than this ratio reads better on a log axis. */
export const LOG_X_SPAN = 8;

const MAX_X_TICKS = 12;

function positives(values: ReadonlyArray<number | null | undefined>): number[] {
  return values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0);
}

/** Log x when every level is positive and the levels span more than 8×; linear otherwise. */
export function defaultXScale(levels: ReadonlyArray<number>): ScaleKind {
  const pos = positives(levels);
  if (pos.length < 2 || pos.length !== levels.length) return 'linear';
  return Math.max(...pos) / Math.min(...pos) > LOG_X_SPAN ? 'log' : 'linear';
}

/** Consecutive swept levels at least this far apart (×) mark a geometric sweep: a log level axis. */
export const LOG_X_STEP = 2;

/**
 * The level axis of one run, decided once for the whole sweep: log when its first two levels are
 * at least 2× apart (1, 2, 4 … or 10, 20, 40 …), linear otherwise. A live run's levels arrive one
 * at a time, lowest first, and the first two never change afterwards, so the axis never jumps from
 * linear to log in the middle of a run (as a rule on the span so far would, the moment it passed
 * 8×), and the finished run reads on the same axis it was watched on. The API does not send the
 * planned levels, so the first two are the earliest the sweep's shape can be known.
 */
export function sweepXScale(levels: ReadonlyArray<number>): ScaleKind {
  const pos = [...new Set(positives(levels))].sort((a, b) => a - b);
  if (pos.length < 2 || pos.length !== new Set(levels).size) return 'linear';
  return pos[1]! / pos[0]! >= LOG_X_STEP ? 'log' : 'linear';
}

/** True when every level is a power of two (1, 2, 4, …): the usual concurrency sweep. */
export function isPowersOfTwo(levels: ReadonlyArray<number>): boolean {
  return levels.length > 0 && levels.every((l) => l > 0 && Number.isInteger(Math.log2(l)));
}

/**
 * Ticks for the level axis: the levels themselves (that is what was swept), thinned to at most
 * twelve so labels never overlap; the first and last level are always kept.
 */
export function levelTicks(levels: ReadonlyArray<number>): number[] {
  const sorted = [...new Set(levels)].sort((a, b) => a - b);
  if (sorted.length <= MAX_X_TICKS) return sorted;
  const step = Math.ceil((sorted.length - 1) / (MAX_X_TICKS - 1));
  const out = sorted.filter((_, i) => i % step === 0);
  const last = sorted[sorted.length - 1];
  if (last !== undefined && out[out.length - 1] !== last) {
    // Replace the previous tick rather than crowd the end of the axis.
    if (out.length >= MAX_X_TICKS) out.pop();
    out.push(last);
  }
  return out;
}

/**
 * The x domain. Log: half a step of padding on each side in log space, so the first and last point
 * are not drawn on the plot's border. Linear: from 0 (a load of 0 is the natural origin).
 */
export function levelDomain(levels: ReadonlyArray<number>, scale: ScaleKind): [number, number] {
  const pos = positives(levels);
  if (pos.length === 0) return scale === 'log' ? [0.5, 2] : [0, 1];
  const min = Math.min(...pos);
  const max = Math.max(...pos);
  if (scale === 'log') {
    const pad = min === max ? 2 : Math.pow(max / min, 1 / Math.max(2 * (pos.length - 1), 8));
    return [min / pad, max * pad];
  }
  return [0, niceCeil(max * 1.04)];
}

/** The smallest 1-2-5 multiple of a power of ten that is ≥ value (value > 0). */
export function niceCeil(value: number): number {
  if (!(value > 0)) return 1;
  const exp = Math.floor(Math.log10(value));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    const candidate = Number((m * Math.pow(10, exp)).toPrecision(12));
    if (candidate >= value) return candidate;
  }
  return Math.pow(10, exp + 1);
}

const LOG_STEPS = [1, 2, 5];

function logCandidates(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(min)) - 1; e <= Math.ceil(Math.log10(max)) + 1; e++) {
    for (const m of LOG_STEPS) out.push(Number((m * Math.pow(10, e)).toPrecision(12)));
  }
  return out;
}

/**
 * A log-axis domain and its ticks for the given values: the tightest 1-2-5 bounds around the
 * positive values, ticks on 1-2-5 (or only powers of ten when that gives too many). Zero, negative
 * and missing values are ignored; null when nothing positive remains (the chart shows no data).
 */
export function logAxis(values: ReadonlyArray<number | null | undefined>): { domain: [number, number]; ticks: number[] } | null {
  const pos = positives(values);
  if (pos.length === 0) return null;
  const min = Math.min(...pos);
  const max = Math.max(...pos);
  const candidates = logCandidates(min, max);
  const lo = [...candidates].reverse().find((c) => c <= min) ?? min;
  let hi = candidates.find((c) => c >= max) ?? max;
  if (hi === lo) hi = candidates.find((c) => c > lo) ?? lo * 2;
  let ticks = candidates.filter((c) => c >= lo && c <= hi);
  if (ticks.length > 9) ticks = ticks.filter((t) => Number.isInteger(Math.log10(t)) || t === lo || t === hi);
  return { domain: [lo, hi], ticks };
}

/** Values that a log axis can draw: zero, negative, NaN and missing become null (a gap). */
export function logSafe(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}

const LINEAR_STEPS = [1, 2, 2.5, 5, 10];
const MAX_LINEAR_STEPS = 6;

/**
 * A linear axis from 0 with round steps (1, 2, 2.5, 5 × 10ⁿ) and at most seven ticks, so labels
 * read 0/50/100… rather than 0/65/130…. Missing values are ignored; all-missing gives 0–1.
 */
export function linearAxis(values: ReadonlyArray<number | null | undefined>): { domain: [number, number]; ticks: number[] } {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const max = finite.length > 0 ? Math.max(0, ...finite) : 0;
  if (max === 0) return { domain: [0, 1], ticks: [0, 0.25, 0.5, 0.75, 1] };
  return rangeAxis(0, max);
}

/** The smallest round step (1, 2, 2.5, 5 × 10ⁿ) that covers `span` in at most MAX_LINEAR_STEPS steps. */
function roundStep(span: number): number {
  const rough = span / MAX_LINEAR_STEPS;
  const exp = Math.floor(Math.log10(rough));
  for (const m of LINEAR_STEPS) {
    const candidate = m * Math.pow(10, exp);
    if (candidate >= rough) return candidate;
  }
  return Math.pow(10, exp + 1);
}

/**
 * A linear axis over lo…hi (not necessarily from 0): bounds and ticks on multiples of a round step,
 * seven ticks or eight (when lo and hi both fall between steps) — for a chart whose values sit in a
 * narrow band far from zero. An empty or unordered band (hi ≤ lo, or not numbers) becomes a band of
 * one around lo (around 0 when lo is not a number either).
 */
export function rangeAxis(lo: number, hi: number): { domain: [number, number]; ticks: number[] } {
  if (!(hi > lo) || !Number.isFinite(hi - lo)) {
    const centre = Number.isFinite(lo) ? lo : 0;
    [lo, hi] = [centre - 0.5, centre + 0.5];
  }
  const step = roundStep(hi - lo);
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const ticks = Array.from({ length: last - first + 1 }, (_, i) => Number(((first + i) * step).toPrecision(12)));
  return { domain: [ticks[0]!, ticks[ticks.length - 1]!], ticks };
}
