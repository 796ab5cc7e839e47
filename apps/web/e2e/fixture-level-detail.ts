/**
 * The fixture API's `GET /api/v1/runs/{id}/levels/{level}`: raw requests made up for a fixture
 * level (deterministic, consistent with its curve point: the same request and error counts in the
 * window, latencies lognormal around its p50 reaching its p99, a warm-up at 60% of the rate and
 * 1.3× the latency), then the answer computed from those rows as the API computes it in ClickHouse
 * (exact percentiles, 40 log-spaced buckets, slices anchored at measure_from).
 */
import { prng } from '@kneeboard/analysis/testing';
import { isSuccessStatus, SPECTRUM_PERCENTS, type CurvePoint, type LevelDetail, type RunDetail, type StepWindow } from '@kneeboard/contracts';

interface Row {
  ts: number;
  latency: number;
  status: number;
}

const Z99 = 2.326;

/** The made-up raw rows of one level; exported so tests can check the answer against them. */
export function levelRows(p: CurvePoint, step: StepWindow): Row[] {
  const rand = prng(Math.round(p.level * 1000) + 17);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const end = step.ended_at ?? step.measure_from + p.window_s * 1000;
  const median = p.p50_ms ?? 1;
  const sigma = p.p50_ms && p.p99_ms && p.p99_ms > p.p50_ms ? Math.log(p.p99_ms / p.p50_ms) / Z99 : 0.2;
  const rows: Row[] = [];
  const ok = p.requests - p.errors;
  const warmMs = step.measure_from - step.started_at;
  const warmN = Math.round(((ok / Math.max(p.window_s, 1e-9)) * 0.6 * warmMs) / 1000);
  for (let k = 0; k < warmN; k++) rows.push({ ts: step.started_at + rand() * warmMs * 0.999, latency: 1.3 * median * Math.exp(sigma * gaussian()), status: 200 });
  for (let k = 0; k < ok; k++) rows.push({ ts: step.measure_from + rand() * (end - step.measure_from), latency: median * Math.exp(sigma * gaussian()), status: 200 });
  // Errors: a third never got a response (status 0), the rest 503s.
  for (let k = 0; k < p.errors; k++) rows.push({ ts: step.measure_from + rand() * (end - step.measure_from), latency: 1000, status: k % 3 === 0 ? 0 : 503 });
  return rows;
}

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return (sorted[lo] as number) + (h - lo) * ((sorted[hi] as number) - (sorted[lo] as number));
}

/** Mirrors the API's slice widths (packages/clickhouse level-buckets): at most 60 slices a step. */
const WIDTHS_MS = [100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000];

export function computeLevelDetail(runId: string, p: CurvePoint, step: StepWindow, rows: Row[]): LevelDetail {
  const end = step.ended_at ?? Math.max(...rows.map((r) => r.ts), step.measure_from);
  const win = rows.filter((r) => r.ts >= step.measure_from && r.ts <= end);
  const ok = win.filter((r) => isSuccessStatus(r.status)).map((r) => r.latency).sort((a, b) => a - b);
  const windowS = (end - step.measure_from) / 1000;
  const min = ok[0] ?? null;
  const max = ok.at(-1) ?? null;

  const histogram: LevelDetail['histogram'] = [];
  if (min !== null && max !== null) {
    const lo = Math.max(min, 0.001);
    if (max > lo) {
      const n = 40;
      const counts = new Array<number>(n).fill(0);
      for (const v of ok) counts[Math.min(n - 1, Math.max(0, Math.floor((Math.log(Math.max(v, lo) / lo) / Math.log(max / lo)) * n)))]! += 1;
      const edge = (i: number) => (i === 0 ? min : i === n ? max : lo * (max / lo) ** (i / n));
      counts.forEach((count, i) => histogram.push({ lo_ms: edge(i), hi_ms: edge(i + 1), count }));
    } else histogram.push({ lo_ms: min, hi_ms: max, count: ok.length });
  }

  const width = WIDTHS_MS.find((w) => (end - step.started_at) / w <= 60) ?? 60_000;
  const kMin = Math.floor((step.started_at - step.measure_from) / width);
  const kMax = Math.ceil((end - step.measure_from) / width) - 1;
  const slices = new Map<number, Row[]>();
  for (const r of rows) {
    if (r.ts < step.started_at || r.ts > end) continue;
    const k = Math.min(kMax, Math.max(kMin, Math.floor((r.ts - step.measure_from) / width)));
    const slice = slices.get(k);
    if (slice) slice.push(r);
    else slices.set(k, [r]);
  }
  const timeline: LevelDetail['timeline'] = [];
  for (let k = kMin; k <= kMax; k++) {
    const from = Math.max(step.started_at, step.measure_from + k * width);
    const to = Math.min(end, step.measure_from + (k + 1) * width);
    if (to <= from) continue;
    const inSlice = slices.get(k) ?? [];
    const lat = inSlice.filter((r) => isSuccessStatus(r.status)).map((r) => r.latency).sort((a, b) => a - b);
    timeline.push({ t_s: (from - step.started_at) / 1000, duration_ms: to - from, requests: inSlice.length, ok: lat.length, qps: lat.length / ((to - from) / 1000), p50_ms: quantile(lat, 0.5), p99_ms: quantile(lat, 0.99), measured: k >= 0 });
  }

  const statuses = [...new Set(win.map((r) => r.status))].sort((a, b) => a - b).map((status) => ({ status, count: win.filter((r) => r.status === status).length, ok: isSuccessStatus(status) }));
  return {
    run_id: runId,
    level: p.level,
    started_at: step.started_at,
    measure_from: step.measure_from,
    ended_at: step.ended_at,
    in_progress: step.ended_at === null,
    window_s: windowS,
    requests: win.length,
    ok: ok.length,
    errors: win.length - ok.length,
    qps: windowS > 0 ? ok.length / windowS : 0,
    min_ms: min,
    mean_ms: ok.length > 0 ? ok.reduce((a, b) => a + b, 0) / ok.length : null,
    max_ms: max,
    spectrum: SPECTRUM_PERCENTS.map((pct) => ({ p: pct, ms: quantile(ok, pct / 100) })),
    histogram,
    bucket_ms: width,
    timeline,
    statuses,
  };
}

/** The answer for `level` (as it appears in the URL) of the run, or null when it has no such level. */
export function levelDetailFor(d: RunDetail, level: number): LevelDetail | null {
  const p = d.curve.find((c) => c.level === level);
  const step = d.steps.find((s) => s.level === level);
  if (!p || !step) return null;
  return computeLevelDetail(d.run.id, p, step, levelRows(p, step));
}
