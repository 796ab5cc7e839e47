import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, countRollupRequests, EXACT_UP_TO_REQUESTS, insertEventBatch, queryRollupCurve, queryRollupLevelSamples, runsWithSuspectRollup } from '@kneeboard/clickhouse';
import { ListRunsResponse, RunDetail, type CurvePoint } from '@kneeboard/contracts';
import { batchOf, createRun, postJson, prng, STORAGE_MODES, startTestApi, type TestApi } from './helpers.ts';
import { arrowOf, stepAt } from './ingest-support.ts';

/**
 * Known distributions, one per level, as ClickHouse expressions of two uniforms u1, u2 in (0, 1)
 * drawn from a hash of the row number (deterministic: the same rows every run).
 */
const DISTRIBUTIONS: Record<number, { name: string; latency: string }> = {
  1: { name: 'lognormal(ln 20, 0.5)', latency: 'exp(log(20) + 0.5 * sqrt(-2 * log(u1)) * cos(2 * pi() * u2))' },
  2: { name: 'exponential, mean 10, +1', latency: '1 - 10 * log(u1)' },
  3: { name: 'uniform 1..1000', latency: '1 + 999 * u1' },
  4: { name: 'Pareto(5, 1.5), heavy tail', latency: '5 / pow(u1, 1 / 1.5)' },
  5: { name: 'bimodal: 90% ~2 ms, 10% ~500 ms', latency: 'if(u2 < 0.9, 2 + u1, 500 + 100 * u1)' },
};
const ROWS_PER_LEVEL = 60_000;
const T0 = 1_800_000_000_000;
/** Windows start and end mid-second, so both partial seconds come from raw rows. */
const windowOf = (level: number) => ({ level, started_at: T0 + level * 100_000, measure_from: T0 + level * 100_000 + 1_234.5, ended_at: T0 + level * 100_000 + 31_777.25 });

/** Rows straight into the raw table (the view rolls them up as any insert): 1 s of warm-up, 30 s measured, spill past the end. */
async function insertKnownRows(api: TestApi, runId: string): Promise<void> {
  for (const [levelText, d] of Object.entries(DISTRIBUTIONS)) {
    const level = Number(levelText);
    const from = windowOf(level).started_at;
    await api.db.client.command({
      query: `INSERT INTO kb_request_events_v1 (run_id, agent_id, level, ts_us, latency_us, compute_us, queue_us, status)
        SETTINGS insert_deduplication_token = {token:String}
        SELECT {run_id:UUID}, 'known', {level:Float64}, toInt64(floor(({from:Float64} + number * 33000 / {n:UInt32}) * 1000 + 0.5)), toUInt64(floor(latency * 1000 + 0.5)),
               if(number % 10 = 0, NULL, toUInt64(floor(latency * 0.6 * 1000 + 0.5))), if(number % 10 = 0, NULL, toUInt64(floor(latency * 0.3 * 1000 + 0.5))),
               if(number % 50 = 7, 503, 200)
        FROM (SELECT number,
                     (cityHash64(number, {level:Float64}, 1) % 1000000007 + 1) / 1000000008 AS u1,
                     (cityHash64(number, {level:Float64}, 2) % 1000000007 + 1) / 1000000008 AS u2,
                     ${d.latency} AS latency
              FROM numbers({n:UInt32}))`,
      query_params: { run_id: runId, level, from, n: ROWS_PER_LEVEL, token: `known-${runId}-${level}` },
    });
  }
}

const relativeError = (got: number | null | undefined, want: number | null | undefined) => Math.abs((got as number) / (want as number) - 1);

describe.each(STORAGE_MODES)('the rollup against exact percentiles on known distributions (%s)', (mode) => {
  let api: TestApi;
  let runId: string;
  let exact: RunDetail;
  let rollup: RunDetail;
  beforeAll(async () => {
    api = await startTestApi({ mode });
    runId = await createRun(api.url, { service: 'known', release: 'v1' });
    for (const level of Object.keys(DISTRIBUTIONS)) expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, windowOf(Number(level)))).status).toBe(200);
    await insertKnownRows(api, runId);
    const get = async (query: string) => RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}${query}`)).json());
    [exact, rollup] = [await get('?exact=1'), await get('?exact=0')];
  });
  afterAll(async () => api?.close());

  it('says where each answer came from; unasked, a run this large is answered from the rollup', async () => {
    expect(exact.percentiles).toBe('exact');
    expect(rollup.percentiles).toBe('rollup');
    const unasked = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    expect(ROWS_PER_LEVEL * Object.keys(DISTRIBUTIONS).length).toBeGreaterThan(EXACT_UP_TO_REQUESTS);
    expect(unasked.percentiles).toBe('rollup');
    const csv = await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv?exact=1`);
    expect(csv.headers.get('kneeboard-percentiles')).toBe('exact');
  });

  it('rolls up every stored row once', async () => {
    expect(await countRollupRequests(api.db, runId)).toBe(await countRequests(api.db, runId));
    expect(await countRequests(api.db, runId)).toBe(ROWS_PER_LEVEL * Object.keys(DISTRIBUTIONS).length);
  });

  it('counts, QPS, window and mean exactly, with both partial seconds at the edges', () => {
    expect(rollup.curve.map((p) => p.level)).toEqual(exact.curve.map((p) => p.level));
    for (const [i, e] of exact.curve.entries()) {
      const r = rollup.curve[i] as CurvePoint;
      expect(r.requests).toBe(e.requests);
      expect(r.errors).toBe(e.errors);
      expect(r.requests).toBeLessThan(ROWS_PER_LEVEL); // warm-up and spill are outside the window
      expect(r.qps).toBeCloseTo(e.qps, 6);
      expect(r.window_s).toBeCloseTo(30.54275, 6);
      expect(r.mean_ms).toBeCloseTo(e.mean_ms as number, 6);
    }
  });

  it.each(Object.entries(DISTRIBUTIONS))('level %s (%o): every percentile within 1% of exact', (level, _d) => {
    const e = exact.curve.find((p) => p.level === Number(level)) as CurvePoint;
    const r = rollup.curve.find((p) => p.level === Number(level)) as CurvePoint;
    const keys = ['p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms'] as const;
    for (const key of keys) {
      expect(e[key], key).not.toBeNull();
      expect(relativeError(r[key], e[key]), `${key}: rollup ${r[key]} vs exact ${e[key]}`).toBeLessThanOrEqual(0.01);
    }
  });

  it('lists the run with exact counts and peak QPS from the rollup', async () => {
    const { runs } = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=known`)).json());
    expect(runs).toHaveLength(1);
    expect(runs[0]?.levels).toBe(exact.curve.length);
    expect(runs[0]?.requests).toBe(exact.curve.reduce((s, p) => s + p.requests, 0));
    expect(runs[0]?.peak_qps).toBeCloseTo(Math.max(...exact.curve.map((p) => p.qps)), 6);
  });

  it('answers the sketches’ ranks from their state bytes as ClickHouse itself would (curve and comparison grid)', async () => {
    // 'here' decodes each merged DDSketch state in this process; 'engine' asks ClickHouse (the fallback).
    const [here, engine] = [await queryRollupCurve(api.db, runId), await queryRollupCurve(api.db, runId, undefined, 'engine')];
    expect(here).toHaveLength(Object.keys(DISTRIBUTIONS).length);
    const keys = ['p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'compute_p50_ms', 'compute_p99_ms', 'queue_p50_ms', 'queue_p99_ms', 'other_p50_ms'] as const;
    for (const [i, e] of engine.entries()) {
      expect(here[i]?.requests).toBe(e.requests);
      for (const key of keys) expect(relativeError(here[i]?.[key], e[key]), `level ${e.level} ${key}`).toBeLessThanOrEqual(1e-12);
    }
    const [gridHere, gridEngine] = [await queryRollupLevelSamples(api.db, runId), await queryRollupLevelSamples(api.db, runId, undefined, 'engine')];
    expect(gridHere).not.toBeNull();
    expect(gridHere!.map((l) => l.latencies.length)).toEqual(gridEngine!.map((l) => l.latencies.length));
    for (const [i, level] of gridEngine!.entries()) {
      expect(gridHere![i]?.per_second_ok).toEqual(level.per_second_ok);
      const worst = level.latencies.reduce((w, v, j) => Math.max(w, relativeError(gridHere![i]!.latencies[j], v)), 0);
      expect(worst, `level ${level.level}`).toBeLessThanOrEqual(1e-12);
    }
  });

  it('refuses a malformed exact flag with a 400 naming it', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/${runId}?exact=yes`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { field?: string }).field).toBe('querystring.exact');
  });
});

/** A batch of n events at level 1 with seeded timings (compute and queue within the latency). */
function timedBatch(batchId: string, n: number, seed: number) {
  const rand = prng(seed);
  return batchOf(
    Array.from({ length: n }, (_, i) => {
      const latency = 1 + rand() * 100;
      return { level: 1, ts: stepAt(1).started_at + seed * 7_000 + i + rand(), latency, compute: i % 10 === 0 ? null : latency * 0.5, queue: i % 10 === 0 ? null : latency * 0.2, status: i % 97 === 0 ? 503 : 200 };
    }),
    batchId,
  );
}

describe('a crash between the raw rows and the rollup view’s rows (embedded)', () => {
  it('is repaired at start-up: the default view, ?exact=0 and the runs list agree with the raw rows again, percentiles included', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kb-rollup-crash-'));
    let api = await startTestApi({ dataDir });
    try {
      const runId = await createRun(api.url, { service: 'rollup-crash' });
      expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
      for (let i = 1; i <= 3; i++) expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, timedBatch(`b${i}`, 5_000, i))).status).toBe(200);
      const get = async (query: string) => RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}${query}`)).json());
      const before = await get('?exact=0');
      expect(before.curve[0]?.requests).toBe(15_000);

      // What a process killed mid-insert leaves: seconds whose view rows were never written (the
      // raw part was), and — the other order — a second counted twice in the rollup.
      const seconds = (await (
        await api.db.client.query({ query: 'SELECT DISTINCT second FROM kb_request_seconds_v1 WHERE run_id = {run:UUID} ORDER BY second LIMIT 4', query_params: { run: runId }, format: 'JSONEachRow' })
      ).json()) as Array<{ second: string | number }>;
      const [doubled, ...lost] = seconds.map((s) => Number(s.second));
      await api.db.client.command({ query: 'DELETE FROM kb_request_seconds_v1 WHERE run_id = {run:UUID} AND second IN {lost:Array(Int64)}', query_params: { run: runId, lost } });
      await api.db.client.command({
        query: `INSERT INTO kb_request_seconds_v1 SETTINGS insert_deduplicate = 0, insert_deduplication_token = ''
                SELECT * FROM kb_request_seconds_v1 WHERE run_id = {run:UUID} AND second = {doubled:Int64}`,
        query_params: { run: runId, doubled },
      });
      const damaged = await get('?exact=0');
      expect(damaged.curve[0]?.requests).not.toBe(15_000);
      await api.close();

      api = await startTestApi({ dataDir });
      const after = await get('?exact=0');
      // Rebuilt states equal the view's own, so every figure is as before the damage — the mean to
      // within float addition order (a sum over seconds in another order differs in its last bits).
      const meanTo1ns = (curve: typeof before.curve) => curve.map((p) => ({ ...p, mean_ms: typeof p.mean_ms === "number" ? Math.round(p.mean_ms * 1e6) / 1e6 : p.mean_ms }));
      expect(meanTo1ns(after.curve)).toEqual(meanTo1ns(before.curve));
      expect((await get('')).curve.map((p) => p.requests)).toEqual([15_000]);
      expect((await get('?exact=1')).curve.map((p) => [p.requests, p.qps])).toEqual(after.curve.map((p) => [p.requests, p.qps]));
      const list = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=rollup-crash`)).json());
      expect(list.runs.map((r) => [r.requests, r.peak_qps])).toEqual([[15_000, after.curve[0]?.qps]]);
      expect(await countRollupRequests(api.db, runId)).toBe(await countRequests(api.db, runId));
      // Nothing more to repair.
      expect(await runsWithSuspectRollup(api.db)).toEqual([]);
    } finally {
      await api.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('an insert whose view failed after the raw part (embedded)', () => {
  it('is stored once in both tables: its raw rows landed, so it is acknowledged, the rollup rebuilt, and a retry is a duplicate', async () => {
    const api = await startTestApi();
    try {
      const runId = await createRun(api.url, { service: 'rollup-view-failed' });
      expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
      const batch = timedBatch('view-failed', 5_000, 5);
      // The view's target refuses this run's rows: ClickHouse has written the raw part by then.
      await api.db.client.command({ query: `ALTER TABLE kb_request_seconds_v1 ADD CONSTRAINT kb_test_refuse CHECK run_id != toUUID('${runId}')` });
      const failed = await postJson(`${api.url}/api/v1/runs/${runId}/events`, batch);
      await api.db.client.command({ query: 'ALTER TABLE kb_request_seconds_v1 DROP CONSTRAINT kb_test_refuse' });
      // ClickHouse wrote the raw part before the view failed: the events are stored. The rebuild of
      // the rollup was refused too (as a full disk would), so it is done before the run's next insert.
      expect(failed.body).toEqual({ accepted: 5_000, duplicate: false });
      expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batch)).body).toEqual({ accepted: 0, duplicate: true });
      expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, timedBatch('next', 5_000, 6))).status).toBe(200);
      expect([await countRequests(api.db, runId), await countRollupRequests(api.db, runId)]).toEqual([10_000, 10_000]);
      const view = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}?exact=0`)).json());
      expect(view.curve.map((p) => p.requests)).toEqual([10_000]);
    } finally {
      await api.close();
    }
  }, 120_000);
});

describe('a server whose view failed after the raw part (server)', () => {
  it('completes the rollup when the batch is sent again under the same token', async () => {
    const api = await startTestApi({ mode: 'server' });
    try {
      const runId = await createRun(api.url, { service: 'rollup-retry' });
      const batch = timedBatch('retried', 5_000, 7);
      const insert = { runId, batchId: 'retried', agentId: batch.agent_id, arrow: arrowOf(batch) };
      // The view's target refuses this run's rows: the insert fails after (or before) the raw part.
      await api.db.client.command({ query: `ALTER TABLE kb_request_seconds_v1 ADD CONSTRAINT kb_test_refuse CHECK run_id != toUUID('${runId}')` });
      await expect(insertEventBatch(api.db, insert)).rejects.toThrow();
      await api.db.client.command({ query: 'ALTER TABLE kb_request_seconds_v1 DROP CONSTRAINT kb_test_refuse' });
      // Not acknowledged, so the agent sends it again: stored once in both tables.
      await insertEventBatch(api.db, insert);
      await insertEventBatch(api.db, insert);
      expect([await countRequests(api.db, runId), await countRollupRequests(api.db, runId)]).toEqual([5_000, 5_000]);
    } finally {
      await api.close();
    }
  }, 120_000);
});
