/**
 * Prepare: turn a run's curve (CurvePoint[] from the API) into the rows each chart draws. Pure
 * functions, no React: the chart components only render what these return.
 *
 * Rules: a missing percentile stays null (the line shows a gap, never a drop to zero); on a log
 * axis, values that cannot be drawn (≤ 0) become null too and are counted so the chart can say so.
 */
import type { CurvePoint, RunAnalysis } from '@kneeboard/contracts';
import { linearAxis, logAxis, logSafe, type ScaleKind } from '@kneeboard/chart-prep';
import type { LatencyKey } from './series.ts';

/** The curve sorted by level with one point per level (the last one wins, as in a live update). */
export function normalizeCurve(curve: ReadonlyArray<CurvePoint>): CurvePoint[] {
  const byLevel = new Map<number, CurvePoint>();
  for (const p of curve) byLevel.set(p.level, p);
  return [...byLevel.values()].sort((a, b) => a.level - b.level);
}

/** What every row carries for tooltips and dots, whatever the chart. */
export interface RowBase {
  level: number;
  inProgress: boolean;
  requests: number;
  errors: number;
  point: CurvePoint;
}

function base(p: CurvePoint): RowBase {
  return { level: p.level, inProgress: p.in_progress, requests: p.requests, errors: p.errors, point: p };
}

/** A y axis: domain and the ticks to label. */
export interface YAxisSpec {
  domain: [number, number];
  ticks: number[];
}

export interface QpsRow extends RowBase {
  qps: number;
  /** The USL fit's throughput at this level (the analysis' `usl_fitted`), for the tooltip; null without a fit. */
  fitted: number | null;
  /** Scaling efficiency X(N) ÷ (N·X(1)) from the analysis; null where it has none (in progress). */
  efficiency: number | null;
}

export interface QpsData {
  rows: QpsRow[];
  yAxis: YAxisSpec;
}

export interface QpsOptions {
  /** The fitted USL line is drawn, so the y axis must hold it too (its peak can sit above every measured point). */
  showFit?: boolean;
  /** An open loop draws the offered = achieved line (y = x), so the y axis must reach the highest offered rate. */
  offered?: boolean;
}

/**
 * Throughput per level, with the analysis' fitted throughput and efficiency beside it. A QPS of 0
 * is a real measurement (e.g. every request failed), so it is kept.
 */
export function qpsData(curve: ReadonlyArray<CurvePoint>, analysis: RunAnalysis, options: QpsOptions = {}): QpsData {
  const { showFit = false, offered = false } = options;
  const fittedAt = new Map(analysis.usl_fitted.map((u) => [u.level, u.qps]));
  const eff = new Map(analysis.efficiency.map((e) => [e.level, e.efficiency]));
  const rows = normalizeCurve(curve).map((p) => ({
    ...base(p),
    qps: p.qps,
    fitted: fittedAt.get(p.level) ?? null,
    efficiency: p.in_progress ? null : (eff.get(p.level) ?? null),
  }));
  const fitted = showFit ? analysis.usl_curve.map((u) => u.qps) : [];
  const offeredRates = offered ? rows.map((r) => r.level) : [];
  return { rows, yAxis: linearAxis([...rows.map((r) => r.qps), ...fitted, ...offeredRates]) };
}

export type LatencyRow = RowBase & Record<LatencyKey, number | null>;

export interface LatencyData {
  rows: LatencyRow[];
  /** Domain and ticks around the visible series; null on a log axis with nothing positive to draw. */
  yAxis: YAxisSpec | null;
  /** Values of the visible series that a log axis cannot draw (≤ 0), shown as gaps. */
  droppedOnLog: number;
}

/** Latency percentiles per level for the chosen series and y scale; `marks` (e.g. SLO thresholds, ms) are kept inside the axis too. */
export function latencyData(curve: ReadonlyArray<CurvePoint>, visible: ReadonlyArray<LatencyKey>, yScale: ScaleKind, marks: ReadonlyArray<number> = []): LatencyData {
  let dropped = 0;
  const rows = normalizeCurve(curve).map((p) => {
    const row = { ...base(p), p50_ms: p.p50_ms, p90_ms: p.p90_ms, p99_ms: p.p99_ms, p999_ms: p.p999_ms };
    if (yScale === 'log') {
      for (const key of visible) {
        const safe = logSafe(row[key]);
        if (safe === null && row[key] !== null) dropped++;
        row[key] = safe;
      }
    }
    return row;
  });
  const values = rows.length === 0 ? [] : [...rows.flatMap((r) => visible.map((k) => r[k])), ...marks];
  return { rows, yAxis: yScale === 'log' ? logAxis(values) : linearAxis(values), droppedOnLog: dropped };
}

export interface SplitRow extends RowBase {
  /** Bar heights in ms: null where the component is unknown; negative "other" is drawn as 0. */
  compute: number | null;
  queue: number | null;
  other: number | null;
  /** The values as measured, for the tooltip (other can be slightly negative from clock granularity). */
  raw: { compute: number | null; queue: number | null; other: number | null; p50: number | null };
}

export interface SplitData {
  rows: SplitRow[];
  /** Bounds the tallest stack. */
  yAxis: YAxisSpec;
  /** False when no level has compute or queue timing: the target sends no Server-Timing header. */
  hasServerTiming: boolean;
}

/**
 * The p50 latency split into compute, queue and other per level (seed 001's table as bars). Each
 * component is its own median, so the stack is close to, not exactly, the latency p50.
 */
export function splitData(curve: ReadonlyArray<CurvePoint>): SplitData {
  const rows = normalizeCurve(curve).map((p) => ({
    ...base(p),
    compute: nonNegative(p.compute_p50_ms),
    queue: nonNegative(p.queue_p50_ms),
    other: nonNegative(p.other_p50_ms),
    raw: { compute: p.compute_p50_ms, queue: p.queue_p50_ms, other: p.other_p50_ms, p50: p.p50_ms },
  }));
  const hasServerTiming = rows.some((r) => r.raw.compute !== null || r.raw.queue !== null);
  const stacks = rows.map((r) => (r.compute ?? 0) + (r.queue ?? 0) + (r.other ?? 0));
  return { rows, yAxis: linearAxis(stacks), hasServerTiming };
}

function nonNegative(v: number | null): number | null {
  if (v === null || !Number.isFinite(v)) return null;
  return Math.max(0, v);
}

/** The level whose measurement window is still open, if any. */
export function inProgressLevel(curve: ReadonlyArray<CurvePoint>): number | null {
  return normalizeCurve(curve).find((p) => p.in_progress)?.level ?? null;
}

/** The highest QPS over completed levels (or over all levels when none is complete yet). */
export function peakQps(curve: ReadonlyArray<CurvePoint>): { level: number; qps: number } | null {
  const points = normalizeCurve(curve);
  const done = points.filter((p) => !p.in_progress);
  let best: CurvePoint | null = null;
  for (const p of done.length > 0 ? done : points) if (best === null || p.qps > best.qps) best = p;
  return best === null ? null : { level: best.level, qps: best.qps };
}
