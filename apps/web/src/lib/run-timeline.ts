/**
 * The run timeline's prepare step: the API's per-second (or per-bucket) points and the sweep's
 * steps on one wall-clock axis, in seconds since the run's first request or step, whichever came
 * first. A bucket with no successful request is a latency gap (null), never 0.
 */
import type { RunTimeline } from '@kneeboard/contracts';

export interface RunTimelineRow {
  /** Seconds since `origin_ms`. */
  t: number;
  rps: number;
  /** Errors per second in the bucket. */
  errors: number;
  p50: number | null;
  p99: number | null;
  requests: number;
}

export interface RunTimelineBand {
  level: number;
  /** Step start, end of warm-up, step end (end: the newest data while it runs), in seconds since origin. */
  from: number;
  measured: number;
  to: number;
  running: boolean;
}

export interface RunTimelineData {
  origin_ms: number;
  bucket_s: number;
  rows: RunTimelineRow[];
  bands: RunTimelineBand[];
  domain: [number, number];
}

export function prepareRunTimeline(t: RunTimeline): RunTimelineData | null {
  const starts = [...t.points.map((p) => p.t_ms), ...t.steps.map((s) => s.started_at)];
  if (starts.length === 0) return null;
  const origin = Math.min(...starts);
  const sec = (ms: number) => (ms - origin) / 1000;
  const rows = t.points.map((p) => ({
    t: sec(p.t_ms),
    rps: p.rps,
    errors: p.errors / t.bucket_s,
    p50: p.p50_ms,
    p99: p.p99_ms,
    requests: p.requests,
  }));
  const lastData = t.points.length > 0 ? sec((t.points.at(-1) as { t_ms: number }).t_ms) + t.bucket_s : 0;
  const bands = [...t.steps]
    .sort((a, b) => a.started_at - b.started_at)
    .map((s) => ({
      level: s.level,
      from: sec(s.started_at),
      measured: sec(s.measure_from),
      to: s.ended_at === null ? Math.max(lastData, sec(s.measure_from)) : sec(s.ended_at),
      running: s.ended_at === null,
    }));
  const end = Math.max(lastData, ...bands.map((b) => b.to), 1);
  return { origin_ms: origin, bucket_s: t.bucket_s, rows, bands, domain: [0, end] };
}

/** The step under a time on the axis (a click on the chart), or null between steps. */
export function bandAt(bands: ReadonlyArray<RunTimelineBand>, t: number): RunTimelineBand | null {
  return bands.find((b) => t >= b.from && t <= b.to) ?? null;
}

/** `1:05` / `1:02:03`: time since the run started, as the axis shows it. */
export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
