/**
 * Prepares one level's detail (ENDPOINTS.runLevel) for the level panel's
 * charts: the percentile spectrum on a "nines" axis, the histogram's bars, the step's timeline with
 * its warm-up range. Pure, so the charts only draw. Missing values stay null (gaps).
 */
import type { LevelDetail } from '@kneeboard/contracts';
import { formatPercentile } from '@kneeboard/contracts/figures';
import { formatCompact } from './format.ts';
import type { SearchParams } from './view-state.ts';

/** The HDR-histogram x axis: the number of nines, −log10(1 − p). p90 → 1, p99 → 2, p99.99 → 4. */
export function nines(percent: number): number {
  return percent <= 0 ? 0 : -Math.log10(1 - percent / 100);
}

export const NINES_TICKS = [0, 1, 2, 3, 4].map((n) => ({ x: n, label: n === 0 ? 'p0' : `p${formatPercentile(100 - 100 / 10 ** n)}` }));
export const NINES_DOMAIN: [number, number] = [0, 4];

export interface SpectrumRow {
  x: number;
  p: number;
  ms: number | null;
}

export function spectrumRows(d: Pick<LevelDetail, 'spectrum'>): SpectrumRow[] {
  return d.spectrum.filter((s) => s.p < 100).map((s) => ({ x: nines(s.p), p: s.p, ms: s.ms }));
}

export interface HistogramRow {
  /** The bucket as its tick reads, e.g. `12.5–13.1`. */
  label: string;
  lo: number;
  hi: number;
  count: number;
}

export function histogramRows(d: Pick<LevelDetail, 'histogram'>): HistogramRow[] {
  return d.histogram.map((b) => ({ label: `${formatCompact(b.lo_ms)}–${formatCompact(b.hi_ms)}`, lo: b.lo_ms, hi: b.hi_ms, count: b.count }));
}

export interface TimelineRow {
  /** Middle of the slice, seconds since the step started. */
  t: number;
  qps: number;
  p50: number | null;
  p99: number | null;
  measured: boolean;
}

export interface TimelineData {
  rows: TimelineRow[];
  /** Seconds since the step started: [0, measure_from] is warm-up; null when the step had none. */
  warmup: [number, number] | null;
  /** The x domain: the whole step. */
  domain: [number, number];
}

export function timelineData(d: Pick<LevelDetail, 'timeline' | 'started_at' | 'measure_from'>): TimelineData {
  const rows = d.timeline.map((b) => ({ t: b.t_s + b.duration_ms / 2000, qps: b.qps, p50: b.p50_ms, p99: b.p99_ms, measured: b.measured }));
  const last = d.timeline.at(-1);
  const end = last ? last.t_s + last.duration_ms / 1000 : 0;
  const warm = (d.measure_from - d.started_at) / 1000;
  return { rows, warmup: warm > 0 ? [0, warm] : null, domain: [0, Math.max(end, warm)] };
}

/** `?level=8` on the run page opens that level's panel; anything that is not a positive number is ignored. */
export function parseLevelParam(params: SearchParams): number | null {
  const raw = Array.isArray(params.level) ? params.level[0] : params.level;
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** The run view's path with the open level added, so a link reopens the panel. */
export function withLevelParam(path: string, level: number | null): string {
  if (level === null) return path;
  return `${path}${path.includes('?') ? '&' : '?'}level=${encodeURIComponent(String(level))}`;
}
