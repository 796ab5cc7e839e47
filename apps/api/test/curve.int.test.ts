import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, storedMs } from '@kneeboard/clickhouse';
import { RunDetail } from '@kneeboard/contracts';
import { batchOf, createRun, percentile, postJson, prng, startTestApi, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

interface Row {
  level: number;
  ts: number;
  latency: number;
  compute: number | null;
  queue: number | null;
  status: number;
}

/**
 * A synthetic sweep with a known answer: per level a 2 s warm-up then a 10 s window, latencies
 * drawn from a skewed distribution, ~2% errors, some rows without Server-Timing, and rows just
 * outside the window on both sides.
 */
function syntheticSweep(levels: number[], t0: number) {
  const rand = prng(42);
  const rows: Row[] = [];
  const steps = levels.map((level, i) => {
    const started = t0 + i * 13_000;
    const measureFrom = started + 2_000;
    const ended = measureFrom + 10_000;
    const n = 400 * level;
    for (let k = 0; k < n; k++) {
      const ts = started + rand() * 12_500; // spills 500 ms past the window's end
      const compute = 5 + rand() * 10;
      const queue = level > 4 ? rand() * level * 3 : 0.1;
      const latency = compute + queue + rand() * 2 + (rand() < 0.01 ? 200 : 0);
      const hasTiming = rand() > 0.1;
      rows.push({ level, ts, latency, compute: hasTiming ? compute : null, queue: hasTiming ? queue : null, status: rand() < 0.02 ? 503 : 200 });
    }
    return { level, started_at: started, measure_from: measureFrom, ended_at: ended };
  });
  return { rows, steps };
}

/** A row as storage keeps it: times rounded to the µs on the way in (the raw events table holds integer µs). */
const asStored = (r: Row): Row => ({
  ...r,
  ts: storedMs(r.ts),
  latency: storedMs(r.latency),
  compute: r.compute === null ? null : storedMs(r.compute),
  queue: r.queue === null ? null : storedMs(r.queue),
});

function expectedPoint(sent: Row[], step: { level: number; measure_from: number; ended_at: number }) {
  const rows = sent.map(asStored);
  const inWindow = rows.filter((r) => r.level === step.level && r.ts >= step.measure_from && r.ts <= step.ended_at);
  const ok = inWindow.filter((r) => r.status >= 1 && r.status <= 399);
  const timed = ok.filter((r) => r.compute !== null);
  return {
    requests: inWindow.length,
    errors: inWindow.length - ok.length,
    qps: ok.length / ((step.ended_at - step.measure_from) / 1000),
    mean: ok.reduce((sum, r) => sum + r.latency, 0) / ok.length,
    p50: percentile(ok.map((r) => r.latency), 0.5),
    p90: percentile(ok.map((r) => r.latency), 0.9),
    p99: percentile(ok.map((r) => r.latency), 0.99),
    p999: percentile(ok.map((r) => r.latency), 0.999),
    compute_p50: percentile(timed.map((r) => r.compute as number), 0.5),
    queue_p99: percentile(timed.map((r) => r.queue as number), 0.99),
    other_p50: percentile(timed.map((r) => r.latency - (r.compute as number) - (r.queue as number)), 0.5),
  };
}

async function getDetail(runId: string, query = '') {
  const res = await fetch(`${api.url}/api/v1/runs/${runId}${query}`);
  expect(res.status).toBe(200);
  return RunDetail.parse(await res.json());
}

describe('the curve: exact from raw rows, or from the rollup', () => {
  it('matches counts, QPS and percentiles computed independently, excluding warm-up', async () => {
    const runId = await createRun(api.url);
    const { rows, steps } = syntheticSweep([1, 2, 4, 8], 1_800_000_000_000);
    for (const step of steps) expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, step)).status).toBe(200);
    // Several batches, as an agent would send them.
    for (let i = 0; i < rows.length; i += 2_500) {
      const res = await postJson(`${api.url}/api/v1/runs/${runId}/events`, batchOf(rows.slice(i, i + 2_500), `b${i}`));
      expect(res.status).toBe(200);
    }
    expect(await countRequests(api.db, runId)).toBe(rows.length);

    const exact = await getDetail(runId, '?exact=1');
    const rollup = await getDetail(runId, '?exact=0');
    // Unasked, a run this small is answered from raw rows, and says so.
    expect((await getDetail(runId)).percentiles).toBe('exact');
    expect(exact.percentiles).toBe('exact');
    expect(rollup.percentiles).toBe('rollup');
    for (const detail of [exact, rollup]) expect(detail.curve.map((p) => p.level)).toEqual([1, 2, 4, 8]);
    // The rollup's sketches: within 1% of the value at each rank (0.5% by design). Exact: to 1e-6.
    const close = (got: number | null | undefined, want: number | null, relative: number | null) => {
      expect(got).not.toBeNull();
      if (relative === null) expect(got).toBeCloseTo(want as number, 6);
      else expect(Math.abs((got as number) / (want as number) - 1)).toBeLessThanOrEqual(relative);
    };
    for (const [detail, relative] of [[exact, null], [rollup, 0.01]] as const) {
      for (const step of steps) {
        const want = expectedPoint(rows, step);
        const got = detail.curve.find((p) => p.level === step.level);
        expect(got).toBeDefined();
        if (!got) continue;
        // Counts, QPS, window and mean are exact from both sources.
        expect(got.requests).toBe(want.requests);
        expect(got.errors).toBe(want.errors);
        expect(got.requests).toBeLessThan(rows.filter((r) => r.level === step.level).length); // warm-up and spill excluded
        expect(got.qps).toBeCloseTo(want.qps, 6);
        expect(got.window_s).toBeCloseTo(10, 6);
        expect(got.mean_ms).toBeCloseTo(want.mean, 6);
        close(got.p50_ms, want.p50, relative);
        close(got.p90_ms, want.p90, relative);
        close(got.p99_ms, want.p99, relative);
        close(got.p999_ms, want.p999, relative);
        close(got.compute_p50_ms, want.compute_p50, relative);
        close(got.queue_p99_ms, want.queue_p99, relative);
        close(got.other_p50_ms, want.other_p50, relative);
        expect(got.in_progress).toBe(false);
      }
    }
  });

  it('stores a replayed batch once, and two different batches in a row both', async () => {
    const runId = await createRun(api.url);
    const t = 1_800_000_100_000;
    await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 1, started_at: t, measure_from: t, ended_at: t + 10_000 });
    const a = batchOf([{ level: 1, ts: t + 1, latency: 5 }, { level: 1, ts: t + 2, latency: 6 }], 'batch-a');
    const b = batchOf([{ level: 1, ts: t + 3, latency: 7 }], 'batch-b');

    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, a)).body).toEqual({ accepted: 2, duplicate: false });
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, a)).body).toEqual({ accepted: 0, duplicate: true });
    // The embedded engine keeps the last insert's settings: b must not inherit a's dedup token.
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, b)).body).toEqual({ accepted: 1, duplicate: false });
    // Same content, new batch id: a different batch, stored.
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, { ...b, batch_id: 'batch-c' })).body).toEqual({ accepted: 1, duplicate: false });
    // The same batch sent concurrently three times is still stored once.
    const d = batchOf([{ level: 1, ts: t + 4, latency: 8 }], 'batch-d');
    const results = await Promise.all([1, 2, 3].map(() => postJson(`${api.url}/api/v1/runs/${runId}/events`, d)));
    expect(results.filter((r) => (r.body as { duplicate: boolean }).duplicate === false)).toHaveLength(1);

    expect(await countRequests(api.db, runId)).toBe(5);
    expect((await getDetail(runId)).curve[0]?.requests).toBe(5);
  });

  it('a step in progress measures up to its newest request, and the same batch id in another run is another batch', async () => {
    const runA = await createRun(api.url);
    const runB = await createRun(api.url);
    const t = 1_800_000_200_000;
    const rows = Array.from({ length: 100 }, (_, i) => ({ level: 2, ts: t + 1_000 + i * 20, latency: 3 }));
    for (const run of [runA, runB]) {
      await postJson(`${api.url}/api/v1/runs/${run}/steps`, { level: 2, started_at: t, measure_from: t + 1_000 });
      expect((await postJson(`${api.url}/api/v1/runs/${run}/events`, batchOf(rows, 'same-id'))).status).toBe(200);
    }
    const point = (await getDetail(runB)).curve[0];
    expect(point?.in_progress).toBe(true);
    expect(point?.requests).toBe(100);
    expect(point?.window_s).toBeCloseTo(1.98, 6);
    expect(point?.qps).toBeCloseTo(100 / 1.98, 6);
    expect(await countRequests(api.db, runA)).toBe(100);
  });

  it('lists runs newest first with levels and peak QPS, filtered by service and release', async () => {
    const runId = await createRun(api.url, { service: 'search', release: 'v2.0.0' });
    const t = 1_800_000_300_000;
    await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 1, started_at: t, measure_from: t, ended_at: t + 1_000 });
    await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 2, started_at: t + 1_000, measure_from: t + 1_000, ended_at: t + 2_000 });
    const rows = [
      ...Array.from({ length: 50 }, (_, i) => ({ level: 1, ts: t + i * 10, latency: 2 })),
      ...Array.from({ length: 80 }, (_, i) => ({ level: 2, ts: t + 1_000 + i * 10, latency: 2 })),
    ];
    await postJson(`${api.url}/api/v1/runs/${runId}/events`, batchOf(rows, 'x'));
    const res = await fetch(`${api.url}/api/v1/runs?service=search&release=v2.0.0`);
    const { runs } = (await res.json()) as { runs: Array<{ id: string; levels: number; peak_qps: number; requests: number }> };
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: runId, levels: 2, requests: 130, peak_qps: 80 });
    const all = (await (await fetch(`${api.url}/api/v1/runs`)).json()) as { runs: Array<{ id: string }> };
    expect(all.runs[0]?.id).toBe(runId);
    expect(all.runs.length).toBeGreaterThan(1);
  });

  it('finishing a run records the time once; finishing it as something else is a conflict', async () => {
    const runId = await createRun(api.url);
    const first = await postJson(`${api.url}/api/v1/runs/${runId}/finish`, { status: 'finished' });
    expect(first.status).toBe(200);
    const replayed = await postJson(`${api.url}/api/v1/runs/${runId}/finish`, { status: 'finished' });
    expect(replayed.status).toBe(200);
    expect((replayed.body as { finished_at: number }).finished_at).toBe((first.body as { finished_at: number }).finished_at);
    const aborted = await postJson(`${api.url}/api/v1/runs/${runId}/finish`, { status: 'aborted' });
    expect(aborted.status).toBe(409);
    expect((aborted.body as { field: string }).field).toBe('status');
  });
});
