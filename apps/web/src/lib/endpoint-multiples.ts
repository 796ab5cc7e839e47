/**
 * The run page's small multiples: one small QPS chart and one small p99 chart per request name,
 * from `GET /runs/{id}/names`. Every card is drawn on the same axes — levels, QPS from 0, p99 on one
 * log scale (endpoints differ by orders of magnitude in latency) — so a glance down the grid compares
 * them. Pure: the order, the shared axes and each point's place are tested without a browser; the
 * component (EndpointMultiples.tsx) only scales the 0..1 coordinates to its box.
 */
import { levelTicks, linearAxis, logAxis, logSafe, sweepXScale, type ScaleKind } from '@kneeboard/chart-prep';
import type { NameCurve, RunNameCurves } from '@kneeboard/contracts';
import { formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';

/** Cards drawn: past this many the grid stops comparing at a glance; the rest are in the selector. */
export const MAX_MULTIPLES = 24;

export interface MultiplePoint {
  level: number;
  /** 0 (left) .. 1 (right) on the shared level axis. */
  x: number;
  /** 0 (bottom) .. 1 (top) on the shared QPS axis. */
  qps: number;
  /** 0 .. 1 on the shared log p99 axis; null: no successful request there (a gap, never 0). */
  p99: number | null;
  qpsValue: number;
  p99Value: number | null;
}

export interface MultipleCard {
  name: string;
  requests: number;
  /** Of the run's named requests, 0..1. */
  share: number;
  kneeLevel: number | null;
  /** Where the knee is on the level axis, 0..1; null without a knee. */
  kneeX: number | null;
  /** The endpoint analysis' `saturates_first`: the one that gives out first. */
  first: boolean;
  points: MultiplePoint[];
  /** What a screen reader hears for the chart: the two curves' ends and the knee. */
  label: string;
}

export interface Axis {
  domain: [number, number];
  ticks: number[];
}

export interface MultiplesView {
  xScale: ScaleKind;
  x: Axis;
  /** The level ticks and where each sits, 0..1. */
  xTicks: Array<{ level: number; x: number }>;
  qps: Axis;
  /** Null when no endpoint has a p99 anywhere. */
  p99: Axis | null;
  cards: MultipleCard[];
  /** Endpoints left out past MAX_MULTIPLES (and any the API omitted). */
  more: number;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * In the order they give out: the one the analysis says saturates first, then by their own knee
 * (lowest level first), then the ones with no knee; the busier first among equals, then by name, so
 * the grid never reshuffles between renders.
 */
export function multiplesOrder(names: ReadonlyArray<NameCurve>, first: string | null): NameCurve[] {
  const rank = (n: NameCurve) => (n.name === first ? -Infinity : (n.knee_level ?? Infinity));
  return [...names].sort((a, b) => rank(a) - rank(b) || b.requests - a.requests || byName(a.name, b.name));
}

function place(value: number, [lo, hi]: [number, number], log: boolean): number {
  if (log) return hi > lo ? (Math.log(value) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : 0.5;
  return hi > lo ? (value - lo) / (hi - lo) : 0.5;
}

/** The level axis every card shares: the run's sweep rule (log for 1, 2, 4 …), four ticks at most so they fit a small chart. */
function levelAxis(levels: number[]): { scale: ScaleKind; axis: Axis } {
  const scale = sweepXScale(levels);
  const sorted = [...new Set(levels)].sort((a, b) => a - b);
  const lo = sorted[0] ?? 0;
  const hi = sorted[sorted.length - 1] ?? 1;
  const all = levelTicks(sorted);
  const step = Math.ceil(all.length / 4);
  const ticks = all.filter((_, i) => i % step === 0 || i === all.length - 1);
  return { scale, axis: { domain: scale === 'log' ? [lo, hi] : [Math.min(0, lo), hi], ticks } };
}

function describe(n: NameCurve, parameter: string): string {
  const c = n.curve;
  const firstP = c[0];
  const lastP = c[c.length - 1];
  if (!firstP || !lastP) return `${n.name}: no levels with requests`;
  const p99s = c.map((p) => p.p99_ms).filter((v): v is number => v !== null);
  const p99 = p99s.length > 0 ? `, p99 ${formatMs(p99s[0])} to ${formatMs(p99s[p99s.length - 1])} ms` : '';
  const knee = n.knee_level === null ? 'no knee' : `knee at ${parameter} ${formatLevel(n.knee_level)}`;
  return `${n.name}: ${formatQps(firstP.qps)} to ${formatQps(lastP.qps)} req/s from ${parameter} ${formatLevel(firstP.level)} to ${formatLevel(lastP.level)}${p99}; ${knee}`;
}

/** The grid: shared axes over every drawn endpoint, cards in the order they give out. */
export function prepareMultiples(answer: RunNameCurves, saturatesFirst: string | null, parameter: string, max = MAX_MULTIPLES): MultiplesView {
  const total = answer.names.reduce((n, c) => n + c.requests, 0);
  const ordered = multiplesOrder(answer.names, saturatesFirst).slice(0, max);
  const points = ordered.flatMap((n) => n.curve);
  const { scale, axis: x } = levelAxis(points.map((p) => p.level));
  const qps = linearAxis(points.map((p) => p.qps));
  const p99 = logAxis(points.map((p) => logSafe(p.p99_ms)));
  const log = scale === 'log';
  const cards = ordered.map(
    (n): MultipleCard => ({
      name: n.name,
      requests: n.requests,
      share: total > 0 ? n.requests / total : 0,
      kneeLevel: n.knee_level,
      kneeX: n.knee_level === null ? null : place(n.knee_level, x.domain, log),
      first: n.name === saturatesFirst,
      points: n.curve.map((p) => {
        const latency = logSafe(p.p99_ms);
        return { level: p.level, x: place(p.level, x.domain, log), qps: place(p.qps, qps.domain, false), p99: latency === null || p99 === null ? null : place(latency, p99.domain, true), qpsValue: p.qps, p99Value: p.p99_ms };
      }),
      label: describe(n, parameter),
    }),
  );
  const xTicks = x.ticks.map((level) => ({ level, x: place(level, x.domain, log) }));
  return { xScale: scale, x, xTicks, qps, p99, cards, more: answer.names.length - cards.length + answer.omitted };
}

/** An SVG coordinate to a tenth of a unit: finer than a pixel, short in the markup. */
const tenth = (v: number) => Math.round(v * 10) / 10;

/** An SVG path through the points in a box (y down), broken at gaps: `M x y L x y … M …`. */
export function linePath(points: ReadonlyArray<{ x: number; y: number | null }>, width: number, height: number): string {
  let d = '';
  let pen = false;
  for (const p of points) {
    if (p.y === null) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${tenth(p.x * width)} ${tenth((1 - p.y) * height)}`;
    pen = true;
  }
  return d;
}
