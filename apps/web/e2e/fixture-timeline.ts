/**
 * The fixture API's `GET /api/v1/runs/{id}/timeline`, made from a run's steps and curve as the
 * real API makes it from the per-second rollup: each step's requests spread evenly over the whole
 * seconds it covers (half the rate in its warm-up), summed per second where steps meet, errors in
 * the curve's proportion, p50/p99 the level's. Deterministic, so a test can recompute it.
 */
import { MAX_TIMELINE_POINTS, type RunDetail, type RunTimeline, type RunTimelinePoint } from '@kneeboard/contracts';

export function timelineFor(d: RunDetail, now = Date.now()): RunTimeline {
  const seconds = new Map<number, { requests: number; ok: number; p50: number | null; p99: number | null }>();
  for (const s of d.steps) {
    const p = d.curve.find((c) => c.level === s.level);
    if (!p) continue;
    const end = s.ended_at ?? Math.max(now, s.measure_from);
    const perSecond = p.window_s > 0 ? p.requests / p.window_s : 0;
    const okShare = p.requests > 0 ? (p.requests - p.errors) / p.requests : 1;
    for (let sec = Math.floor(s.started_at / 1000); sec * 1000 < end; sec++) {
      const warm = sec * 1000 < s.measure_from;
      const requests = Math.round((warm ? perSecond / 2 : perSecond) * (Math.min(end, sec * 1000 + 1000) - Math.max(s.started_at, sec * 1000)) / 1000);
      const ok = Math.round(requests * okShare);
      const cur = seconds.get(sec) ?? { requests: 0, ok: 0, p50: null, p99: null };
      seconds.set(sec, { requests: cur.requests + requests, ok: cur.ok + ok, p50: ok > 0 ? (p.p50_ms ?? cur.p50) : cur.p50, p99: ok > 0 ? (p.p99_ms ?? cur.p99) : cur.p99 });
    }
  }
  const steps = d.steps.map((s) => ({ level: s.level, started_at: s.started_at, measure_from: s.measure_from, ended_at: s.ended_at }));
  if (seconds.size === 0) return { run_id: d.run.id, bucket_s: 1, points: [], steps };
  const first = Math.min(...seconds.keys());
  const last = Math.max(...seconds.keys());
  const bucket = Math.max(1, Math.ceil((last - first + 1) / MAX_TIMELINE_POINTS));
  const points: RunTimelinePoint[] = [];
  for (let t = first; t <= last; t += bucket) {
    let requests = 0;
    let ok = 0;
    let p50: number | null = null;
    let p99: number | null = null;
    for (let sec = t; sec < t + bucket && sec <= last; sec++) {
      const v = seconds.get(sec);
      if (!v) continue;
      requests += v.requests;
      ok += v.ok;
      p50 = v.p50 ?? p50;
      p99 = v.p99 ?? p99;
    }
    points.push({ t_ms: t * 1000, requests, ok, errors: requests - ok, rps: requests / bucket, p50_ms: ok > 0 ? p50 : null, p99_ms: ok > 0 ? p99 : null });
  }
  return { run_id: d.run.id, bucket_s: bucket, points, steps };
}
