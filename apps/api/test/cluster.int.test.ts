import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@clickhouse/client';
import { countRequests, countRollupRequests, insertEventBatch, listExpiredRuns, queryRunChangeMarks, serviceDataVersion } from '@kneeboard/clickhouse';
import { startClickHouseCluster, type ClickHouseCluster } from '@kneeboard/clickhouse-server';
import { RunDetail, type CurvePoint } from '@kneeboard/contracts';
import { encodeArrowColumns } from '@kneeboard/event-wire';
import { batchOf, createRun, postJson, prng, startTestApi, type TestApi } from './helpers.ts';

/** The same events for both storages: 3 levels, 10 s windows starting mid-second, 40 batches. */
function sweep() {
  const rand = prng(7);
  const t0 = 1_800_000_000_000;
  const steps = [1, 2, 4].map((level, i) => ({ level, started_at: t0 + i * 12_000, measure_from: t0 + i * 12_000 + 1_500.5, ended_at: t0 + i * 12_000 + 11_500.5 }));
  const rows = steps.flatMap((s) =>
    Array.from({ length: 6_000 }, () => {
      const latency = 5 * s.level * Math.exp(0.5 * (rand() + rand() + rand() - 1.5));
      return { level: s.level, ts: s.started_at + rand() * 12_000, latency, compute: latency * 0.6, queue: rand() < 0.1 ? null : latency * 0.3, status: rand() < 0.02 ? 503 : 200 };
    }),
  );
  const batches = Array.from({ length: 40 }, (_, i) => batchOf(rows.filter((_, k) => k % 40 === i), `batch-${i}`));
  return { steps, batches, total: rows.length };
}

async function store(api: TestApi, data: ReturnType<typeof sweep>, service = 'cluster'): Promise<string> {
  const runId = await createRun(api.url, { service, release: 'v1' });
  for (const s of data.steps) expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, s)).status).toBe(200);
  for (const b of data.batches) expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, b)).status).toBe(200);
  return runId;
}

const curveOf = async (api: TestApi, runId: string, exact: 0 | 1) => RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}?exact=${exact}`)).json()).curve;

describe('a 2-shard cluster (CLICKHOUSE_CLUSTER, no Keeper: tables node by node)', () => {
  let cluster: ClickHouseCluster;
  let onCluster: TestApi;
  let single: TestApi;
  const data = sweep();
  let clusterRun: string;
  let singleRun: string;
  beforeAll(async () => {
    cluster = await startClickHouseCluster({ shards: 2, name: 'kb_test' });
    onCluster = await startTestApi({ cluster });
    single = await startTestApi({ mode: 'server' });
    clusterRun = await store(onCluster, data);
    singleRun = await store(single, data);
  }, 180_000);
  afterAll(async () => {
    await onCluster?.close();
    await single?.close();
    await cluster?.stop();
  });

  it("spreads one run's events over both shards, each batch whole on one", async () => {
    const perShard = await Promise.all(
      cluster.nodes.map(async (node) => {
        const c = createClient({ url: node.url, database: (onCluster.storage as { database: string }).database });
        try {
          const r = await c.query({ query: 'SELECT count() AS n FROM kb_request_events_v1_local WHERE run_id = {run:UUID}', query_params: { run: clusterRun }, format: 'JSONEachRow' });
          return Number(((await r.json()) as Array<{ n: string }>)[0]?.n);
        } finally {
          await c.close();
        }
      }),
    );
    expect(perShard.every((n) => n > 0)).toBe(true);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(data.total);
    expect(perShard.every((n) => n % (data.total / 40) === 0)).toBe(true);
    expect(await countRequests(onCluster.db, clusterRun)).toBe(data.total);
  });

  it('gives the same curve as a single server for the same events, exact and from the rollup', async () => {
    for (const exact of [1, 0] as const) {
      const [a, b] = [await curveOf(onCluster, clusterRun, exact), await curveOf(single, singleRun, exact)];
      expect(a.map((p) => [p.level, p.requests, p.errors])).toEqual(b.map((p) => [p.level, p.requests, p.errors]));
      for (const [i, p] of a.entries()) {
        const q = b[i] as CurvePoint;
        for (const key of ['qps', 'mean_ms', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'compute_p50_ms', 'queue_p99_ms', 'other_p50_ms'] as const) {
          expect(p[key], `${key} (exact=${exact})`).toBeCloseTo(q[key] as number, 6);
        }
      }
    }
  });

  it('lists the run with the same counts as the single server', async () => {
    const list = async (api: TestApi) => ((await (await fetch(`${api.url}/api/v1/runs?service=cluster`)).json()) as { runs: Array<{ levels: number; requests: number; peak_qps: number }> }).runs[0];
    const [a, b] = [await list(onCluster), await list(single)];
    expect(a).toMatchObject({ levels: b?.levels, requests: b?.requests });
    expect(a?.peak_qps).toBeCloseTo(b?.peak_qps as number, 6);
  });

  it('stores a replayed batch once: the API answers from its ledger, and the shard itself drops a copy that gets past it', async () => {
    expect((await postJson(`${onCluster.url}/api/v1/runs/${clusterRun}/events`, data.batches[3]!)).body).toEqual({ accepted: 0, duplicate: true });
    // Straight to the storage, no ledger: the same batch three times (twice at once), then another batch.
    const n = 100;
    const t = data.steps[0]!.measure_from + 2_000;
    const columns = (offset: number) => ({
      length: n,
      level: new Float64Array(n).fill(1),
      ts_ms: Float64Array.from({ length: n }, (_, i) => t + offset + i),
      latency_ms: new Float64Array(n).fill(9),
      compute_ms: new Float64Array(n).fill(5),
      queue_ms: new Float64Array(n).fill(1),
      status: new Uint16Array(n).fill(200),
    });
    const direct = { runId: clusterRun, batchId: 'direct-1', agentId: 'test', arrow: encodeArrowColumns(columns(0)) };
    await insertEventBatch(onCluster.db, direct);
    await Promise.all([insertEventBatch(onCluster.db, direct), insertEventBatch(onCluster.db, direct)]);
    await insertEventBatch(onCluster.db, { ...direct, batchId: 'direct-2', arrow: encodeArrowColumns(columns(0.5)) });
    expect(await countRequests(onCluster.db, clusterRun)).toBe(data.total + 2 * n);
    expect(await countRollupRequests(onCluster.db, clusterRun)).toBe(data.total + 2 * n);
  });

  it('answers the guard\'s queries through the Distributed tables: change marks, expired runs, readiness', async () => {
    const marks = await queryRunChangeMarks(onCluster.db, [clusterRun]);
    expect(marks.get(clusterRun)).toMatch(/^b40@.*\|r\d+\|s3@\d+$/);
    const tomorrow = Date.now() + 86_400_000;
    expect(await listExpiredRuns(onCluster.db, { defaultCutoffMs: tomorrow, services: [], keepLabel: 'pinned', limit: 10 })).toEqual([clusterRun]);
    expect(await listExpiredRuns(onCluster.db, { defaultCutoffMs: tomorrow, services: [{ service: 'cluster', cutoffMs: null }], keepLabel: 'pinned', limit: 10 })).toEqual([]);
    expect((await fetch(`${onCluster.url}/readyz`)).status).toBe(200);
  });

  it("reads a service's data version and its history through the Distributed tables (GLOBAL IN)", async () => {
    const [runs, , , requests] = (await serviceDataVersion(onCluster.db, 'cluster')).split('|');
    expect(runs).toBe('1');
    expect(Number(requests)).toBe(await countRollupRequests(onCluster.db, clusterRun));
    const before = await serviceDataVersion(onCluster.db, 'cluster');
    expect((await postJson(`${onCluster.url}/api/v1/runs/${clusterRun}/finish`, {})).status).toBe(200);
    expect(await serviceDataVersion(onCluster.db, 'cluster')).not.toBe(before);
    const res = await fetch(`${onCluster.url}/api/v1/services/cluster/history`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { runs_read: number }).runs_read).toBe(1);
  });
  it("keeps each request name's curve through the Distributed tables: the same as a single server's, its rollup within 1% of exact", async () => {
    const names = ['search', 'cart', 'checkout'];
    const named = { ...data, batches: data.batches.map((b) => ({ ...b, batch_id: `named-${b.batch_id}`, name: b.level.map((_, k) => names[k % 3]!) })) };
    // Another service, and last: the tests above count the runs of 'cluster' and every run.
    const [onC, onS] = [await store(onCluster, named, 'cluster-names'), await store(single, named, 'cluster-names')];
    const detail = async (api: TestApi, run: string, query: string) => RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${run}?${query}`)).json());
    expect((await detail(onCluster, onC, '')).names?.map((n) => n.name)).toEqual(['cart', 'checkout', 'search']);
    for (const name of names) {
      const [c, s1] = [await detail(onCluster, onC, `name=${name}&exact=1`), await detail(single, onS, `name=${name}&exact=1`)];
      expect(c.curve.map((p) => [p.level, p.requests, p.errors])).toEqual(s1.curve.map((p) => [p.level, p.requests, p.errors]));
      for (const [i, p] of c.curve.entries()) expect(p.p99_ms).toBeCloseTo(s1.curve[i]!.p99_ms!, 6);
      const rollup = await detail(onCluster, onC, `name=${name}&exact=0`);
      expect(rollup.curve.map((p) => p.requests)).toEqual(c.curve.map((p) => p.requests));
      for (const [i, p] of rollup.curve.entries()) expect(Math.abs(p.p99_ms! / c.curve[i]!.p99_ms! - 1)).toBeLessThanOrEqual(0.01);
    }
    // The whole run from the rollup, merged from its names' rows on each shard (the total rollup
    // holds no named event since migration 100): the single server's, and its exact counts.
    const [whole, wholeOnS, exact] = [(await detail(onCluster, onC, 'exact=0')).curve, (await detail(single, onS, 'exact=0')).curve, (await detail(onCluster, onC, 'exact=1')).curve];
    expect(whole.map((p) => [p.level, p.requests, p.errors])).toEqual(exact.map((p) => [p.level, p.requests, p.errors]));
    expect(whole.map((p) => [p.level, p.requests, p.errors])).toEqual(wholeOnS.map((p) => [p.level, p.requests, p.errors]));
    for (const [i, p] of whole.entries()) {
      expect(Math.abs(p.p99_ms! / exact[i]!.p99_ms! - 1)).toBeLessThanOrEqual(0.01);
      for (const key of ['qps', 'mean_ms', 'p50_ms', 'p99_ms', 'compute_p50_ms', 'queue_p99_ms', 'other_p50_ms'] as const) {
        expect(p[key], key).toBeCloseTo(wholeOnS[i]![key] as number, 6);
      }
    }
  });
});
