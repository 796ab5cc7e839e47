import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, endpointPath, ENDPOINTS, RunDetail, RunNameCurves, type EventBatch } from '@kneeboard/contracts';
import { T0 } from './ingest-support.ts';
import { queryCurve, queryNameCurves } from '@kneeboard/clickhouse';
import { loadNameCurves, nameCurvesBody } from '../src/services/name-curves.ts';
import { loadRunDetail } from '../src/services/run-detail.ts';
import { createRun, postJson, prng, startTestApi, type TestApi } from './helpers.ts';

/** Three endpoints, each with its own share of the traffic and its own service time (ms) that grows with the level differently. */
const MIX = { search: { weight: 3, ms: 4 }, cart: { weight: 2, ms: 12 }, checkout: { weight: 1, ms: 40 } } as const;
type Name = keyof typeof MIX;
const CYCLE: Name[] = (Object.keys(MIX) as Name[]).flatMap((n) => Array.from({ length: MIX[n].weight }, () => n));
const LEVELS = [1, 2, 4, 8];
const WINDOW_MS = 4_000;
const PER_LEVEL = 3_000;

const windowOf = (i: number) => ({ from: T0 + i * 10_000 + 250.5, to: T0 + i * 10_000 + 250.5 + WINDOW_MS });

function levelBatch(level: number, i: number, named: boolean): EventBatch {
  const rand = prng(31 + i);
  const w = windowOf(i);
  const names = Array.from({ length: PER_LEVEL }, (_, k) => CYCLE[k % CYCLE.length]!);
  const latency = names.map((n) => MIX[n].ms * (n === 'checkout' ? level * level : 1) * Math.exp((rand() - 0.5) * 1.2));
  return {
    batch_id: `level-${level}`,
    agent_id: 'mix-agent',
    level: names.map(() => level),
    ts_ms: names.map((_, k) => w.from + ((k + 0.5) * WINDOW_MS) / PER_LEVEL),
    latency_ms: latency,
    compute_ms: names.map(() => null),
    queue_ms: names.map(() => null),
    status: names.map(() => (rand() < 0.02 ? 503 : 200)),
    ...(named ? { name: names } : {}),
  };
}

async function storeRun(api: TestApi, named: boolean): Promise<string> {
  const runId = await createRun(api.url);
  for (const [i, level] of LEVELS.entries()) {
    const w = windowOf(i);
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level, started_at: w.from, measure_from: w.from, ended_at: w.to })).status).toBe(200);
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, levelBatch(level, i, named))).body).toEqual({ accepted: PER_LEVEL, duplicate: false });
  }
  return runId;
}

async function get(api: TestApi, path: string): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const res = await fetch(`${api.url}${path}`);
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
}

const fields = (p: { level: number; requests: number; errors: number; qps: number; p50_ms: number | null; p99_ms: number | null }) => ({ level: p.level, requests: p.requests, errors: p.errors, qps: p.qps, p50_ms: p.p50_ms, p99_ms: p.p99_ms });

describe('every request name’s curve in one answer (GET /runs/{id}/names)', () => {
  let api: TestApi;
  let named: string;
  let plain: string;
  beforeAll(async () => {
    api = await startTestApi();
    named = await storeRun(api, true);
    plain = await storeRun(api, false);
  }, 120_000);
  afterAll(async () => api?.close());

  it.each([{}, { exact: '1' }, { exact: '0' }])('answers each name’s curve exactly as ?name= does, busiest first, with the knee the endpoint analysis finds (%o)', async (query) => {
    const res = await get(api, endpointPath(ENDPOINTS.runNameCurves, { id: named }, query));
    expect(res.status).toBe(200);
    const body = RunNameCurves.parse(res.body);
    expect(body.names.map((n) => [n.name, n.requests])).toEqual([
      ['search', (PER_LEVEL / 2) * LEVELS.length],
      ['cart', (PER_LEVEL / 3) * LEVELS.length],
      ['checkout', (PER_LEVEL / 6) * LEVELS.length],
    ]);
    expect(body.omitted).toBe(0);
    const whole = RunDetail.parse((await get(api, endpointPath(ENDPOINTS.getRun, { id: named }, query))).body);
    expect(body.percentiles).toBe(whole.percentiles);
    for (const n of body.names) {
      const one = RunDetail.parse((await get(api, endpointPath(ENDPOINTS.getRun, { id: named }, { ...query, name: n.name }))).body);
      expect(n.curve).toEqual(one.curve.map(fields));
      expect(n.curve.map((p) => p.level)).toEqual(LEVELS);
      expect(n.knee_level).toBe(whole.endpoints!.endpoints.find((e) => e.name === n.name)!.knee_level);
    }
    // checkout's latency grows with the square of the level: its own knee comes before the top level.
    expect(body.names.find((n) => n.name === 'checkout')!.knee_level).not.toBeNull();
  });

  it('answers at most the cap of names, the busiest, and counts the rest', async () => {
    const all = nameCurvesBody((await loadNameCurves(api.db, named, 'auto', 200))!);
    const two = nameCurvesBody((await loadNameCurves(api.db, named, 'auto', 2))!);
    expect(two.names).toEqual(all.names.slice(0, 2));
    expect(two.names.map((n) => n.name)).toEqual(['search', 'cart']);
    expect(two.omitted).toBe(1);
    expect(await loadNameCurves(api.db, '00000000-0000-4000-8000-0000000000ff', 'auto', 2)).toBeNull();
  });

  it('reads the names’ curves once for a run’s /names and its detail’s endpoint analysis (kept per version of the run)', async () => {
    // A handle on the same storage with its own (empty) caches, counting the statements that read every name's curve at once.
    let grouped = 0;
    const client = new Proxy(api.db.client, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const query = (args[0] as { query?: string } | undefined)?.query ?? '';
          if (prop === 'query' && /GROUP BY (r\.)?name, (r\.)?level/.test(query)) grouped++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const db = { ...api.db, client };
    await loadNameCurves(db, named, 'auto', 200);
    expect(grouped).toBe(1);
    const detail = await loadRunDetail(db, named, 'auto', { endpoints: true });
    expect(grouped).toBe(1);
    // The same analysis the API answers, read through its own handle.
    expect(detail!.endpoints).toEqual(RunDetail.parse((await get(api, endpointPath(ENDPOINTS.getRun, { id: named }))).body).endpoints);
    expect(detail!.endpoints!.endpoints.map((e) => e.name).sort()).toEqual(['cart', 'checkout', 'search']);
  });

  it('answers an empty list for a run without names, 404 naming the run for one that does not exist, 400 naming exact for a bad one', async () => {
    const none = await get(api, endpointPath(ENDPOINTS.runNameCurves, { id: plain }));
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ percentiles: null, names: [], omitted: 0 });
    const unknown = await get(api, endpointPath(ENDPOINTS.runNameCurves, { id: '00000000-0000-4000-8000-0000000000ff' }));
    expect(unknown.status).toBe(404);
    expect(ApiError.parse(unknown.body).field).toBe('id');
    const bad = await get(api, endpointPath(ENDPOINTS.runNameCurves, { id: named }, { exact: 'sometimes' }));
    expect(bad.status).toBe(400);
    expect(ApiError.parse(bad.body).field).toContain('exact');
  });

  it('exports every name’s curve as one long CSV (name, then the curve CSV’s columns, the knee marked); a run without names: the header alone', async () => {
    const json = RunNameCurves.parse((await get(api, endpointPath(ENDPOINTS.runNameCurves, { id: named }))).body);
    const csv = await get(api, endpointPath(ENDPOINTS.runNamesCsv, { id: named }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('kneeboard-percentiles')).toBe(json.percentiles);
    expect(csv.headers.get('content-disposition')).toMatch(/-endpoints\.csv"$/);
    const [header, ...rows] = csv.text.trimEnd().split('\n');
    const curveHeader = (await get(api, endpointPath(ENDPOINTS.runCurveCsv, { id: named }))).text.split('\n')[0]!.split(',');
    const columns = header!.split(',');
    expect(columns).toEqual(['name', ...curveHeader.slice(0, curveHeader.indexOf('flag')), 'knee']);
    expect(rows).toHaveLength(json.names.length * LEVELS.length);
    const cell = (row: string, column: string) => row.split(',')[columns.indexOf(column)];
    // Busiest name first, levels in order; counts as the JSON has them; the knee on its own row only.
    expect(rows.map((r) => [cell(r, 'name'), Number(cell(r, 'level')), Number(cell(r, 'requests'))])).toEqual(json.names.flatMap((n) => n.curve.map((p) => [n.name, p.level, p.requests])));
    for (const n of json.names) expect(rows.filter((r) => cell(r, 'name') === n.name && cell(r, 'knee') === 'knee').map((r) => Number(cell(r, 'level')))).toEqual(n.knee_level === null ? [] : [n.knee_level]);
    const none = await get(api, endpointPath(ENDPOINTS.runNamesCsv, { id: plain }));
    expect(none.text).toBe(`${header}\n`);
    expect(none.headers.get('kneeboard-percentiles')).toBeNull();
  });
});

/**
 * Six names over five levels, with compute and queue times on some of them and edges inside each
 * window's first and last second: the one grouped read must give every name every field of the
 * points its own filtered read gives (the API test above compares the chart's fields only).
 */
describe('every name’s curve from one grouped read equals its own read (queryNameCurves)', () => {
  const NAMES = ['a-search', 'b-cart', 'c-checkout', 'd-login', 'e-home', 'f-api'];
  const LEVELS6 = [1, 2, 3, 5, 8];
  const N = 1_800;
  let api: TestApi;
  let runId: string;
  beforeAll(async () => {
    api = await startTestApi();
    runId = await createRun(api.url);
    for (const [i, level] of LEVELS6.entries()) {
      const rand = prng(97 + i);
      const from = T0 + i * 10_000 + 333.25;
      const to = from + 3_500;
      expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level, started_at: from - 500, measure_from: from, ended_at: to })).status).toBe(200);
      // Weights 1..6 by name, so counts differ per name; a few requests fall outside the window.
      const names = Array.from({ length: N }, (_, k) => NAMES[Math.floor(Math.sqrt(((k * 7919) % N) / N) * NAMES.length)]!);
      const nameIx = names.map((n) => NAMES.indexOf(n));
      const latency = nameIx.map((j) => (2 + j * 3) * (1 + (j % 3) * level * 0.2) * Math.exp((rand() - 0.5) * 1.5));
      const batch: EventBatch = {
        batch_id: `six-${level}`,
        agent_id: 'six-agent',
        level: names.map(() => level),
        ts_ms: names.map((_, k) => from - 400 + ((k + 0.5) * 4_300) / N),
        latency_ms: latency,
        // Parts of a request, never longer than it: compute on the even names, queue on every third.
        compute_ms: nameIx.map((j, k) => (j % 2 === 0 ? latency[k]! * 0.4 * rand() : null)),
        queue_ms: nameIx.map((j, k) => (j % 3 === 0 ? latency[k]! * 0.5 * rand() : null)),
        status: names.map(() => (rand() < 0.03 ? 500 : 200)),
        name: names,
      };
      expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, batch)).body).toEqual({ accepted: N, duplicate: false });
    }
  }, 120_000);
  afterAll(async () => api?.close());

  it.each(['exact', 'rollup', 'auto'] as const)('%s: each name’s whole curve, and an empty one for a name without requests', async (wanted) => {
    const asked = [...NAMES].reverse().concat('no-such-name');
    const all = await queryNameCurves(api.db, runId, wanted, asked);
    expect(all.percentiles).toBe(wanted === 'rollup' ? 'rollup' : 'exact');
    expect([...all.curves.keys()]).toEqual(asked);
    for (const name of asked) {
      const own = await queryCurve(api.db, runId, wanted, name);
      expect(own.percentiles).toBe(all.percentiles);
      expect(all.curves.get(name)).toEqual(own.curve);
      expect(own.curve.map((p) => p.level)).toEqual(name === 'no-such-name' ? [] : LEVELS6);
    }
    // The names' requests add up to the run's in every level: none lost or counted twice by the grouping.
    const whole = await queryCurve(api.db, runId, wanted);
    expect(LEVELS6.map((level) => NAMES.reduce((sum, n) => sum + all.curves.get(n)!.find((p) => p.level === level)!.requests, 0))).toEqual(whole.curve.map((p) => p.requests));
    expect(new Set(NAMES.map((n) => all.curves.get(n)![0]!.requests)).size).toBe(NAMES.length);
  });
});
