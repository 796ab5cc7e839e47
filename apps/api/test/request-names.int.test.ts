import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, storedMs } from '@kneeboard/clickhouse';
import { ApiError, endpointPath, ENDPOINTS, RunDetail, type EventBatch } from '@kneeboard/contracts';
import { columnsOf, postArrow, T0 } from './ingest-support.ts';
import { encodeArrowColumns } from '@kneeboard/event-wire';
import { Float64, Table, tableToIPC, Uint16, Utf8, vectorFromArray } from 'apache-arrow';
import { createRun, percentile, postJson, prng, STORAGE_MODES, startTestApi, type TestApi } from './helpers.ts';

/** Three endpoints with their own service times (ms): a mix as a k6 or JMeter test drives it. */
const ENDPOINTS_MS = { search: 4, cart: 12, checkout: 40 } as const;
type Name = keyof typeof ENDPOINTS_MS;
const NAMES = Object.keys(ENDPOINTS_MS) as Name[];
const LEVELS = [1, 2, 4];
/** Each level's window: 6 s, so most of it is whole seconds of the rollup and the rest raw edges. */
const WINDOW_MS = 6_000;
const PER_LEVEL = 6_000;

const windowOf = (i: number) => ({ from: T0 + i * 10_000 + 250.5, to: T0 + i * 10_000 + 250.5 + WINDOW_MS });

/** A level's events: names in turn, latencies lognormal-ish around each name's service time, growing with the level. */
function levelBatch(level: number, i: number, seed: number): EventBatch & { name: string[] } {
  const rand = prng(seed);
  const w = windowOf(i);
  const rows = Array.from({ length: PER_LEVEL }, (_, k) => {
    const name = NAMES[k % NAMES.length]!;
    const base = ENDPOINTS_MS[name] * (name === 'checkout' ? level : 1);
    return { name, ts: w.from + ((k + 0.5) * WINDOW_MS) / PER_LEVEL, latency: base * Math.exp((rand() - 0.5) * 1.2), status: rand() < 0.01 ? 503 : 200 };
  });
  return {
    batch_id: `level-${level}`,
    agent_id: 'mix-agent',
    level: rows.map(() => level),
    ts_ms: rows.map((r) => r.ts),
    latency_ms: rows.map((r) => r.latency),
    compute_ms: rows.map(() => null),
    queue_ms: rows.map(() => null),
    status: rows.map((r) => r.status),
    name: rows.map((r) => r.name),
  };
}

const eventsUrl = (api: TestApi, runId: string) => `${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`;
async function detail(api: TestApi, runId: string, query: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${api.url}/api/v1/runs/${runId}?${new URLSearchParams(query)}`);
  return { status: res.status, body: await res.json() };
}

describe.each(STORAGE_MODES)('request names (%s)', (mode) => {
  let api: TestApi;
  let runId: string;
  const sent: Array<EventBatch & { name: string[] }> = [];
  beforeAll(async () => {
    api = await startTestApi({ mode, ingest: { maxNamesPerRun: 4 } });
    runId = await createRun(api.url);
    for (const [i, level] of LEVELS.entries()) {
      const w = windowOf(i);
      expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level, started_at: w.from, measure_from: w.from, ended_at: w.to })).status).toBe(200);
      const b = levelBatch(level, i, 11 + i);
      sent.push(b);
      // One level as Arrow, the others as JSON: both carry names.
      const res = i === 1 ? await postArrow(api.url, runId, encodeArrowColumns({ ...columnsOf(b), name: { values: NAMES, index: Uint32Array.from(b.name, (n) => NAMES.indexOf(n as Name)) } }), { batch_id: b.batch_id, agent_id: b.agent_id }) : await postJson(eventsUrl(api, runId), b);
      expect(res.body).toEqual({ accepted: PER_LEVEL, duplicate: false });
    }
  }, 120_000);
  afterAll(async () => api?.close());

  it('stores every name, lists them with their counts, and keeps a per-name rollup within 1% of exact', async () => {
    const whole = RunDetail.parse((await detail(api, runId)).body);
    expect(whole.names).toEqual(NAMES.map((name) => ({ name, requests: PER_LEVEL })).sort((a, b) => a.name.localeCompare(b.name)));
    expect(whole.name).toBeUndefined();
    for (const name of NAMES) {
      const exact = RunDetail.parse((await detail(api, runId, { name, exact: '1' })).body);
      const rollup = RunDetail.parse((await detail(api, runId, { name, exact: '0' })).body);
      expect(exact.name).toBe(name);
      expect(exact.percentiles).toBe('exact');
      expect(rollup.percentiles).toBe('rollup');
      // Counts are exact in both; the levels are the run's.
      expect(rollup.curve.map((p) => [p.level, p.requests, p.errors])).toEqual(exact.curve.map((p) => [p.level, p.requests, p.errors]));
      for (const [i, level] of LEVELS.entries()) {
        const b = sent[i]!;
        // As stored: rounded to the µs on the way in.
        const mine = b.latency_ms.filter((_, k) => b.name[k] === name && b.status[k] === 200).map(storedMs);
        const e = exact.curve.find((p) => p.level === level)!;
        // The exact curve is the name's own rows, to the microsecond.
        expect(e.requests).toBe(b.name.filter((n) => n === name).length);
        expect(e.p99_ms).toBeCloseTo(percentile(mine, 0.99)!, 6);
        const r = rollup.curve.find((p) => p.level === level)!;
        for (const key of ['p50_ms', 'p90_ms', 'p99_ms'] as const) expect(Math.abs(r[key]! / e[key]! - 1), `${name} ${level} ${key}`).toBeLessThanOrEqual(0.01);
      }
    }
  });

  it('says which endpoint saturates first and which dominates p99, and answers a name the run lacks with a 404 naming it', async () => {
    const whole = RunDetail.parse((await detail(api, runId)).body);
    expect(whole.endpoints?.endpoints.map((e) => e.name)).toEqual(['cart', 'checkout', 'search']);
    expect(whole.endpoints?.dominates_p99).toBe('checkout');
    expect(whole.endpoints?.summary).toContain('checkout dominates p99');
    const missing = await detail(api, runId, { name: 'login' });
    expect(missing.status).toBe(404);
    expect(ApiError.parse(missing.body).field).toBe('name');
    const empty = await detail(api, runId, { name: '' });
    expect(empty.status).toBe(400);
    expect(ApiError.parse(empty.body).field).toContain('name');
  });

  it('refuses a bad name with a 400 naming the entry, and a batch past the cap with a 400 naming the cap, writing nothing', async () => {
    const before = await countRequests(api.db, runId);
    const one = (name: string[], batch_id: string) => ({ ...levelBatch(1, 0, 99), batch_id, name: Array.from({ length: PER_LEVEL }, (_, k) => name[k % name.length]!) });
    const long = await postJson(eventsUrl(api, runId), one(['search', 'x'.repeat(201)], 'too-long'));
    expect(long.status).toBe(400);
    expect(ApiError.parse(long.body).field).toBe('name[1]');
    const control = await postJson(eventsUrl(api, runId), one(['search', 'cart\u001b[2J'], 'control'));
    expect(control.status).toBe(400);
    expect(ApiError.parse(control.body).field).toBe('name[1]');
    // The run has 3 names and a cap of 4: two new ones are one too many, so none of the batch is kept.
    const past = await postJson(eventsUrl(api, runId), one(['search', 'GET /users/1', 'GET /users/2'], 'past-cap'));
    expect(past.status).toBe(400);
    const err = ApiError.parse(past.body);
    expect(err.field).toBe('name');
    expect(err.message).toMatch(/5 distinct request names, above the cap of 4 per run \(KNEEBOARD_MAX_NAMES_PER_RUN\)/);
    expect(await countRequests(api.db, runId)).toBe(before);
    // Up to the cap is fine, and a refused batch reserved nothing.
    const fourth = await postJson(eventsUrl(api, runId), one(['search', 'GET /users/{id}'], 'at-cap'));
    expect(fourth.body).toEqual({ accepted: PER_LEVEL, duplicate: false });
    expect(await countRequests(api.db, runId)).toBe(before + PER_LEVEL);
  });

  it('stores names sent dictionary-coded (the SDK; its list may repeat a name), as plain utf8 (pyarrow, older SDKs) and none, in batches that arrive together', async () => {
    const run = await createRun(api.url);
    const w = windowOf(0);
    await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: run })}`, { level: 1, started_at: w.from, measure_from: w.from, ended_at: w.to });
    const b = levelBatch(1, 0, 21);
    // A list that repeats a value, as two joined blocks' lists do (the CLI's): ClickHouse refuses a dictionary with a repeat.
    const repeated = [...NAMES, 'cart', ''];
    const coded = encodeArrowColumns({ ...columnsOf(b), name: { values: repeated, index: Uint32Array.from(b.name, (n, k) => (n === 'cart' && k % 2 === 0 ? NAMES.length : NAMES.indexOf(n as Name))) } });
    const c = columnsOf(b);
    const utf8 = tableToIPC(
      new Table({
        level: vectorFromArray([...c.level], new Float64()),
        ts_ms: vectorFromArray([...c.ts_ms], new Float64()),
        latency_ms: vectorFromArray([...c.latency_ms], new Float64()),
        compute_ms: vectorFromArray(b.compute_ms, new Float64()),
        queue_ms: vectorFromArray(b.queue_ms, new Float64()),
        status: vectorFromArray([...c.status], new Uint16()),
        name: vectorFromArray(b.name.map((n) => (n === 'search' ? 'GET /plain' : n)), new Utf8()),
      }),
      'stream',
    );
    // Sent together: on the embedded engine they go in as one grouped insert of three files.
    const results = await Promise.all([
      postArrow(api.url, run, coded, { batch_id: 'coded', agent_id: 'a' }),
      postArrow(api.url, run, utf8, { batch_id: 'utf8', agent_id: 'a' }),
      postArrow(api.url, run, encodeArrowColumns(c), { batch_id: 'none', agent_id: 'a' }),
    ]);
    for (const r of results) expect(r.body).toEqual({ accepted: PER_LEVEL, duplicate: false });
    const per = (name: string) => b.name.filter((n) => n === name).length;
    const whole = RunDetail.parse((await detail(api, run)).body);
    expect(whole.names).toEqual(
      [
        { name: 'GET /plain', requests: per('search') },
        { name: 'cart', requests: 2 * per('cart') },
        { name: 'checkout', requests: 2 * per('checkout') },
        { name: 'search', requests: per('search') },
      ].sort((x, y) => (x.name < y.name ? -1 : 1)),
    );
    expect(await countRequests(api.db, run)).toBe(3 * PER_LEVEL);
    expect(whole.curve[0]!.requests).toBe(3 * PER_LEVEL);
  });

  it('leaves a run without names exactly as before: no names, no endpoints', async () => {
    const plain = await createRun(api.url);
    const w = windowOf(0);
    await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: plain })}`, { level: 1, started_at: w.from, measure_from: w.from, ended_at: w.to });
    const { name: _drop, ...b } = levelBatch(1, 0, 5);
    expect((await postJson(eventsUrl(api, plain), b)).body).toEqual({ accepted: PER_LEVEL, duplicate: false });
    const body = (await detail(api, plain)).body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['analysis', 'curve', 'percentiles', 'run', 'steps']);
  });
});

describe('a crash between the raw rows and the rollup views’ rows, with names (embedded)', () => {
  it('is repaired at start-up in the per-name rollup too: each name’s curve as before the damage', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kb-names-crash-'));
    let api = await startTestApi({ dataDir });
    try {
      const runId = await createRun(api.url, { service: 'names-crash' });
      const w = windowOf(0);
      await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level: 1, started_at: w.from, measure_from: w.from, ended_at: w.to });
      expect((await postJson(eventsUrl(api, runId), levelBatch(1, 0, 3))).status).toBe(200);
      const curves = async () => Promise.all(NAMES.map(async (name) => RunDetail.parse((await detail(api, runId, { name, exact: '0' })).body).curve));
      const before = await curves();
      // What a process killed between the raw part and the views' parts leaves: whole seconds missing from both rollups.
      const lost = [Math.ceil(w.from / 1000) + 1, Math.ceil(w.from / 1000) + 3];
      for (const table of ['kb_request_seconds_v1', 'kb_request_name_seconds_v1']) {
        await api.db.client.command({ query: `DELETE FROM ${table} WHERE run_id = {run:UUID} AND second IN {lost:Array(Int64)}`, query_params: { run: runId, lost } });
      }
      expect((await curves()).map((c) => c[0]?.requests)).not.toEqual(before.map((c) => c[0]?.requests));
      await api.close();
      api = await startTestApi({ dataDir });
      // Rebuilt states equal the view's own: every figure of every name as before (the latency sum
      // added up in another order may differ in its last bit, so the mean to 9 places).
      const after = await curves();
      const exceptMean = (cs: typeof before) => cs.map((c) => c.map(({ mean_ms: _m, ...p }) => p));
      expect(exceptMean(after)).toEqual(exceptMean(before));
      for (const [i, c] of after.entries()) expect(c[0]!.mean_ms).toBeCloseTo(before[i]![0]!.mean_ms!, 9);
    } finally {
      await api.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
