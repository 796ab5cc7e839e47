/**
 * Prepare the comparison's overlay: one line per run (base first, dashed; heads solid), in the
 * colours of the API's compare.svg, for throughput and each latency percentile, on shared axes.
 * A side may be a group of repeated runs (`sizes`): its runs share the group's colour and label
 * (`v1.0.0 ×3`), so the spread of the bundle is the run-to-run noise the intervals account for.
 *
 * Gaps: each run's line goes through its own measured levels only. A level that only some runs
 * swept gets no point on the others (never a zero); it shows in the tooltip as "not measured". A
 * level a run measured without a value (every request failed: null percentiles), or a value a log
 * axis cannot draw, breaks that run's line.
 */
import { levelSelectionContains, type CurvePoint, type LevelSelection, type Run, type RunDetail, type UslCurvePoint } from '@kneeboard/contracts';
import { colourFor } from '@kneeboard/svg-charts';
import { normalizeCurve, type YAxisSpec } from './curve-series.ts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { fitLine, levelDomain, levelTicks, linearAxis, logAxis, logSafe, sweepXScale, type ScaleKind } from '@kneeboard/chart-prep';
import type { LatencyKey } from './series.ts';
import type { ChartSettings } from './view-state.ts';

export type OverlayMetric = 'qps' | LatencyKey;

export interface RunSeries {
  /** `run0` (the base), `run1`… */
  key: string;
  index: number;
  runId: string;
  role: 'base' | 'head';
  /** The group's label: the release (with the first run's name when two groups share a release), `×N` for repeats. */
  label: string;
  /** This run within its group: the label, or `v1.0.0 · run 2/3` for a repeat. */
  memberLabel: string;
  /** 0 for the base group, 1… for the heads. */
  group: number;
  /** Runs in this run's group, and this run's place in it (0 first). */
  groupSize: number;
  member: number;
  run: Run;
  colour: string;
  dashed: boolean;
  /** The run's knee (from its analysis), null when it has none. */
  knee: number | null;
  /** The run's highest throughput and where (completed levels). */
  peak: { level: number; qps: number } | null;
}

/** How the API names runs in its sentences: the release, plus the name when releases repeat. */
export function runLabel(run: Run, all: ReadonlyArray<Run>): string {
  if (all.filter((r) => r.release === run.release).length <= 1) return run.release;
  return `${run.release} (${run.name || run.id.slice(0, 8)})`;
}

function peakOf(curve: ReadonlyArray<CurvePoint>): { level: number; qps: number } | null {
  const done = curve.filter((p) => !p.in_progress);
  let best: CurvePoint | null = null;
  for (const p of done) if (best === null || p.qps > best.qps) best = p;
  return best === null ? null : { level: best.level, qps: best.qps };
}

/** Which group each run is in, from the group sizes (one run per group when none are given). */
function groupsOf(count: number, sizes: ReadonlyArray<number> | undefined): Array<{ group: number; member: number; size: number }> {
  const out: Array<{ group: number; member: number; size: number }> = [];
  const given = sizes ?? Array.from({ length: count }, () => 1);
  given.forEach((size, group) => {
    for (let member = 0; member < size; member++) out.push({ group, member, size });
  });
  // Runs beyond the sizes given (should not happen) are groups of one, so nothing is dropped.
  while (out.length < count) out.push({ group: (out[out.length - 1]?.group ?? -1) + 1, member: 0, size: 1 });
  return out.slice(0, count);
}

/**
 * The runs in drawing order (base first), each with its colour and dash. `sizes` splits them into
 * groups (base group first): a group's runs share its colour, dash and label.
 */
export function runSeries(details: ReadonlyArray<RunDetail>, sizes?: ReadonlyArray<number>): RunSeries[] {
  const where = groupsOf(details.length, sizes);
  const firsts = details.filter((_, i) => where[i]?.member === 0).map((d) => d.run);
  return details.map((d, index) => {
    const { group, member, size } = where[index]!;
    const first = firsts[group] ?? d.run;
    const label = size > 1 ? `${runLabel(first, firsts)} ×${size}` : runLabel(d.run, firsts.length === details.length ? details.map((x) => x.run) : firsts);
    return {
      key: `run${index}`,
      index,
      runId: d.run.id,
      role: group === 0 ? 'base' : 'head',
      label,
      memberLabel: size > 1 ? `${runLabel(first, firsts)} · run ${member + 1}/${size}` : label,
      group,
      groupSize: size,
      member,
      run: d.run,
      colour: colourFor(group),
      dashed: group === 0,
      knee: d.analysis.knee?.level ?? null,
      peak: peakOf(d.curve),
    };
  });
}

/** Every level any run swept, ascending: what the level-range picker offers. */
export function sweptLevels(details: ReadonlyArray<RunDetail>): number[] {
  return [...new Set(details.flatMap((d) => d.curve.map((p) => p.level)))].sort((a, b) => a - b);
}

/** The levels drawn: every swept level inside the selection. All charts share them (and their x axis). */
export function visibleLevels(details: ReadonlyArray<RunDetail>, sel: LevelSelection | null): number[] {
  return sweptLevels(details).filter((l) => levelSelectionContains(sel, l));
}

export interface OverlayPoint {
  level: number;
  /** null: measured, but nothing to draw (a gap in this run's line). */
  value: number | null;
  inProgress: boolean;
}

export interface OverlayLine extends RunSeries {
  /** This run's own levels inside the selection, ascending. */
  points: OverlayPoint[];
}

export interface OverlayCell {
  value: number | null;
  /** False when this run did not sweep the level at all. */
  swept: boolean;
}

/** One row per visible level, for the tooltip: every run's value there, index-aligned with `lines`. */
export interface OverlayRow {
  level: number;
  cells: OverlayCell[];
}

export interface OverlayData {
  metric: OverlayMetric;
  lines: OverlayLine[];
  rows: OverlayRow[];
  /** null on a log axis with nothing positive to draw. */
  yAxis: YAxisSpec | null;
  /** Values a log axis cannot draw (≤ 0), left out as gaps. */
  droppedOnLog: number;
}

export interface OverlayOptions {
  levels: LevelSelection | null;
  /** The y scale; throughput is always drawn on a linear axis from 0. */
  yScale: ScaleKind;
  /** Further values the y axis must hold (the fitted USL lines, when drawn). */
  extraY?: ReadonlyArray<number>;
}

function valueOf(p: CurvePoint, metric: OverlayMetric): number | null {
  return metric === 'qps' ? p.qps : p[metric];
}

/** One metric of every run against level, ready to draw. */
export function overlayData(details: ReadonlyArray<RunDetail>, metric: OverlayMetric, options: OverlayOptions, sizes?: ReadonlyArray<number>): OverlayData {
  const log = metric !== 'qps' && options.yScale === 'log';
  let dropped = 0;
  const lines = runSeries(details, sizes).map((s, i) => {
    const curve = normalizeCurve(details[i]?.curve ?? []).filter((p) => levelSelectionContains(options.levels, p.level));
    const points = curve.map((p) => {
      const raw = valueOf(p, metric);
      const value = log ? logSafe(raw) : raw;
      if (log && raw !== null && value === null) dropped++;
      return { level: p.level, value, inProgress: p.in_progress };
    });
    return { ...s, points };
  });
  const rows = visibleLevels(details, options.levels).map((level) => ({
    level,
    cells: lines.map((l) => {
      const p = l.points.find((q) => q.level === level);
      return p === undefined ? { value: null, swept: false } : { value: p.value, swept: true };
    }),
  }));
  const values = [...lines.flatMap((l) => l.points.map((p) => p.value)), ...(options.extraY ?? [])];
  return { metric, lines, rows, yAxis: log ? logAxis(values) : linearAxis(values), droppedOnLog: dropped };
}

export interface FitLine {
  key: string;
  colour: string;
  points: UslCurvePoint[];
  /** The run's `usl_trusted`: an untrusted fit is drawn dotted and faint, as on the run page. */
  trusted: boolean;
}

/**
 * Each run's fitted USL throughput, clipped to the shown levels and the level axis (`fitLine`, as
 * on the run page); runs without a fitted line are left out. `shown` defaults to the axis' ends.
 */
export function fitLines(
  details: ReadonlyArray<RunDetail>,
  xScale: ScaleKind,
  xDomain: readonly [number, number],
  sizes?: ReadonlyArray<number>,
  shown: ReadonlyArray<number> = xDomain,
): FitLine[] {
  return runSeries(details, sizes)
    .map((s, i) => ({
      key: s.key,
      colour: s.colour,
      points: fitLine(details[i]?.analysis.usl_curve ?? [], xScale, shown, xDomain),
      trusted: details[i]?.analysis.usl_trusted ?? false,
    }))
    .filter((f) => f.points.length >= 2);
}

export interface KneeMark {
  key: string;
  level: number;
  colour: string;
  /** `v1.6.2 knee · 500` */
  title: string;
}

/**
 * Each run's knee as a small mark on the level axis, where the axis can place it. Repeats of a group
 * that put the knee at the same level share one mark (titled with how many runs put it there).
 */
export function kneeMarks(series: ReadonlyArray<RunSeries>, xScale: ScaleKind, xDomain: readonly [number, number]): KneeMark[] {
  const placed = series
    .filter((s): s is RunSeries & { knee: number } => s.knee !== null && Number.isFinite(s.knee))
    .filter((s) => (xScale === 'log' ? s.knee > 0 : true) && s.knee >= xDomain[0] && s.knee <= xDomain[1]);
  const marks = new Map<string, { s: RunSeries & { knee: number }; runs: number }>();
  for (const s of placed) {
    const key = `${s.group}@${s.knee}`;
    const m = marks.get(key);
    if (m) m.runs++;
    else marks.set(key, { s, runs: 1 });
  }
  return [...marks.values()].map(({ s, runs }) => ({
    key: s.key,
    level: s.knee,
    colour: s.colour,
    title: s.groupSize > 1 ? `${s.label} knee · ${formatLevel(s.knee)} (${runs} of ${s.groupSize} runs)` : `${s.memberLabel} knee · ${formatLevel(s.knee)}`,
  }));
}

/** Everything a comparison's charts draw, from the runs and the view's settings. */
export interface CompareCharts {
  series: RunSeries[];
  /** Every swept level (for the range picker) and those drawn. */
  allLevels: number[];
  levels: number[];
  xScale: ScaleKind;
  xDomain: [number, number];
  xTicks: number[];
  /** The latency charts' y scale (throughput is always linear from 0). */
  yScale: ScaleKind;
  qps: OverlayData;
  /** One chart per chosen percentile, in p50, p90, p99, p99.9 order. */
  latency: OverlayData[];
  /** Empty unless the fit is switched on. */
  fits: FitLine[];
  knees: KneeMark[];
}

/**
 * `sizes`: the runs per group, base group first (omitted: one run per side). The level axis follows
 * the run page's rule on every swept level (`sweepXScale`), decided once for the whole set: zooming
 * to a few levels or a live run's next level never flips it between linear and log.
 */
export function compareCharts(details: ReadonlyArray<RunDetail>, settings: ChartSettings, sizes?: ReadonlyArray<number>): CompareCharts {
  const allLevels = sweptLevels(details);
  const levels = visibleLevels(details, settings.levels);
  const xScale = settings.x ?? sweepXScale(allLevels);
  const xDomain = levelDomain(levels, xScale);
  // Fitted lines keep to the levels shown (the axis is padded beyond them).
  const fits = settings.fit === true ? fitLines(details, xScale, xDomain, sizes, levels) : [];
  const series = runSeries(details, sizes);
  return {
    series,
    allLevels,
    levels,
    xScale,
    xDomain,
    xTicks: levelTicks(levels),
    yScale: settings.y,
    qps: overlayData(details, 'qps', { levels: settings.levels, yScale: 'linear', extraY: fits.flatMap((f) => f.points.map((p) => p.qps)) }, sizes),
    latency: settings.metrics.map((m) => overlayData(details, m, { levels: settings.levels, yScale: settings.y }, sizes)),
    fits,
    knees: kneeMarks(series, xScale, xDomain),
  };
}
