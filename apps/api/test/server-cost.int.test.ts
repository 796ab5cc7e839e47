import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SERVER_METRIC_POINTS, RunCost } from '@kneeboard/contracts';
import { batchOf, createRun, postJson, startTestApi, type TestApi } from './helpers.ts';

// Issue 28: a step's server metrics are stored per (run, level, metric, second) and read back as each level's cost.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

const T0 = 1_800_000_000_000;
const S0 = T0 / 1000;
/** Two steps of 12 s (2 s warm-up), one after the other. */
const steps = [
  { level: 2, started_at: T0, measure_from: T0 + 2_000, ended_at: T0 + 12_000 },
  { level: 4, started_at: T0 + 12_000, measure_from: T0 + 14_000, ended_at: T0 + 24_000 },
];

/** Per second of a step: cpu at `cores` (warm-up at 5, which must not count), mem rising to `peak`. */
function points(step: (typeof steps)[number], cores: number, peak: number) {
  const out = [];
  for (let s = step.started_at / 1000; s <= step.ended_at / 1000; s++) {
    const warm = s * 1000 < step.measure_from;
    out.push({ metric: 'cpu', fn: 'rate', second: s, value: warm ? 5 : cores });
    out.push({ metric: 'mem', fn: 'max', second: s, value: peak - (step.ended_at / 1000 - s) * 1000 });
  }
  return out;
}

async function storeRun(): Promise<string> {
  const runId = await createRun(api.url);
  for (const step of steps) expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, step)).status).toBe(200);
  // 10 requests/s at level 2, 18 at level 4, inside each measured window.
  const rows = [];
  for (const [i, step] of steps.entries()) {
    const n = i === 0 ? 100 : 180;
    for (let k = 0; k < n; k++) rows.push({ level: step.level, ts: step.measure_from + ((k + 0.5) * 10_000) / n, latency: 5, status: 200 });
  }
  expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batchOf(rows, 'b1'))).status).toBe(200);
  return runId;
}

const post = (runId: string, body: unknown) => postJson(`${api.url}/api/v1/runs/${runId}/server-metrics`, body);
async function cost(runId: string): Promise<RunCost> {
  const res = await fetch(`${api.url}/api/v1/runs/${runId}/cost`);
  expect(res.status).toBe(200);
  return RunCost.parse(await res.json());
}

describe('server metrics → each level’s cost', () => {
  it('stores a step’s seconds and answers cores used, peak memory, QPS per core and CPU-seconds per 1,000 requests', async () => {
    const runId = await storeRun();
    expect((await post(runId, { level: 2, source: 'metrics-url', cores_available: 2, points: points(steps[0]!, 0.5, 50e6) })).body).toEqual({ ok: true, points: 26 });
    expect((await post(runId, { level: 4, source: 'metrics-url', cores_available: 2, points: points(steps[1]!, 0.8, 60e6), notes: ['cpu: no samples between 08:00:03 and 08:00:05 (HTTP 500)'] })).status).toBe(200);
    const c = await cost(runId);
    expect(c.levels.map((l) => [l.level, l.peak_memory_bytes, l.cores_available, l.seconds])).toEqual([
      [2, 50e6, 2, 11],
      [4, 60e6, 2, 11],
    ]);
    // The mean of eleven equal seconds (the warm-up's 5 cores left out).
    expect(c.levels[0]!.cores_used).toBeCloseTo(0.5, 12);
    expect(c.levels[1]!.cores_used).toBeCloseTo(0.8, 12);
    const detail = (await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json()) as { curve: Array<{ level: number; qps: number; requests: number; window_s: number }> };
    for (const l of c.levels) {
      const p = detail.curve.find((x) => x.level === l.level)!;
      // Exactly as stored: the invariants, not a tolerance.
      expect(l.qps_per_core).toBe(p.qps / l.cores_used!);
      expect(l.cpu_seconds_per_1k).toBe(((l.cores_used! * p.window_s) / p.requests) * 1000);
    }
    expect(c.levels[0]!.efficiency_per_core).toBe(1);
    expect(c.levels[1]!.notes).toEqual(['cpu: no samples between 08:00:03 and 08:00:05 (HTTP 500)']);

    // The CSV carries the figures (as the page prints them), the Markdown the table and the notes.
    const csv = (await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv`)).text()).trim().split('\n');
    const header = csv[0]!.split(',');
    expect(header.slice(-6)).toEqual(['cores_used', 'cores_available', 'peak_memory_bytes', 'qps_per_core', 'cpu_seconds_per_1k', 'efficiency_per_core']);
    // The cost cells are the last six (plain numbers; the flag cell before them may hold a quoted comma).
    const row = (level: number) => Object.fromEntries(csv[1 + c.levels.findIndex((l) => l.level === level)]!.split(',').slice(-6).map((v, i) => [header.at(i - 6), v]));
    expect(row(2)).toMatchObject({ cores_used: '0.5', cores_available: '2', peak_memory_bytes: '50000000', qps_per_core: '20', cpu_seconds_per_1k: '50', efficiency_per_core: '1' });
    const md = await (await fetch(`${api.url}/api/v1/runs/${runId}/cost.md`)).text();
    expect(md).toContain('| 2 | 0.50 of 2 | 47.7 MiB | 20.0 | 50 | 100% |');
    expect(md).toContain('- concurrency 4: cpu: no samples between 08:00:03 and 08:00:05 (HTTP 500)');
  });

  it('leaves the curve CSV of a run without server metrics as it was (no cost columns)', async () => {
    const runId = await storeRun();
    const header = (await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv`)).text()).split('\n')[0]!;
    expect(header).not.toContain('cores_used');
    expect(header.endsWith(',flag')).toBe(true);
  });

  it('stores a second once: a second agent (or a retry) posting the same seconds replaces them, never adds', async () => {
    const runId = await storeRun();
    const body = { level: 2, source: 'process', points: points(steps[0]!, 0.5, 50e6) };
    expect((await post(runId, body)).status).toBe(200);
    expect((await post(runId, body)).status).toBe(200);
    const c = await cost(runId);
    expect(c.levels).toHaveLength(1);
    expect(c.levels[0]!.cores_used).toBe(0.5);
    expect(c.levels[0]!.seconds).toBe(11);
    const rows = await api.db.client.query({ query: 'SELECT count() AS n FROM kb_server_metrics_v1 FINAL WHERE run_id = {id:UUID}', query_params: { id: runId }, format: 'JSONEachRow' });
    expect(Number(((await rows.json()) as Array<{ n: string }>)[0]!.n)).toBe(26);

    // Deleting the run takes its server metrics with it.
    expect((await fetch(`${api.url}/api/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);
    for (const table of ['kb_server_metrics_v1', 'kb_server_metric_steps_v1']) {
      const left = await api.db.client.query({ query: `SELECT count() AS n FROM ${table} WHERE run_id = {id:UUID}`, query_params: { id: runId }, format: 'JSONEachRow' });
      expect(Number(((await left.json()) as Array<{ n: string }>)[0]!.n), table).toBe(0);
    }
  });

  it('refuses bad posts with a 400 naming the field, and too many points with a 413, storing nothing', async () => {
    const runId = await storeRun();
    const good = { level: 2, source: 'metrics-url', points: points(steps[0]!, 0.5, 50e6) };
    const cases: Array<[unknown, number, string]> = [
      [{ ...good, level: 3 }, 400, 'level'],
      [{ ...good, source: 'ssh' }, 400, 'source'],
      [{ ...good, points: [{ metric: 'c-p-u', fn: 'rate', second: S0 + 3, value: 1 }] }, 400, 'points[0].metric'],
      [{ ...good, points: [{ metric: 'cpu', fn: 'rate', second: S0 + 3, value: 1 }, { metric: 'cpu', fn: 'max', second: S0 + 4, value: 1 }] }, 400, 'points[1].fn'],
      [{ ...good, points: [{ metric: 'cpu', fn: 'rate', second: S0 + 3600, value: 1 }] }, 400, 'points[0].second'],
      [{ ...good, notes: ['a\nb'] }, 400, 'notes[0]'],
      [{ ...good, points: Array.from({ length: MAX_SERVER_METRIC_POINTS + 1 }, (_, i) => ({ metric: 'cpu', fn: 'rate', second: S0 + (i % 10), value: 1 })) }, 413, 'points'],
    ];
    for (const [body, status, field] of cases) {
      const res = await post(runId, body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(status);
      expect((res.body as { field?: string }).field).toBe(field);
    }
    expect((await cost(runId)).levels).toEqual([]);
    expect((await post('00000000-0000-4000-8000-000000000000', good)).status).toBe(400);
  });
});
