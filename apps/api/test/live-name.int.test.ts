import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointPath, ENDPOINTS, LIVE_EVENT, RunDetail, type EventBatch } from '@kneeboard/contracts';
import { randomUUID } from 'node:crypto';
import { capacitySender, type LiveSnapshot } from '../src/services/live-capacity.ts';
import { loadRunDetail } from '../src/services/run-detail.ts';
import { createRun, postJson, STORAGE_MODES, startTestApi, type TestApi } from './helpers.ts';
import { readEvents, type SseEvent } from './sse.ts';

/** Two endpoints, their requests per level (different, so a total is never mistaken for either). */
const COUNTS: Record<number, { search: number; cart: number }> = { 1: { search: 300, cart: 120 }, 2: { search: 500, cart: 210 } };
const WINDOW_MS = 3_000;

function levelBatch(level: number, from: number): EventBatch & { name: string[] } {
  const names = [...Array<string>(COUNTS[level]!.search).fill('search'), ...Array<string>(COUNTS[level]!.cart).fill('cart')];
  return {
    batch_id: `level-${level}`,
    agent_id: 'mix-agent',
    level: names.map(() => level),
    ts_ms: names.map((_, k) => from + ((k + 0.5) * WINDOW_MS) / names.length),
    // Each name its own service time, growing with the level.
    latency_ms: names.map((n, k) => (n === 'cart' ? 20 : 5) * level + (k % 7)),
    compute_ms: names.map(() => null),
    queue_ms: names.map(() => null),
    status: names.map(() => 200),
    name: names,
  };
}

const liveUrl = (api: TestApi, id: string, query = '') => `${api.url}${endpointPath(ENDPOINTS.runLive, { id })}${query}`;
const getUrl = (api: TestApi, id: string, query = '') => `${api.url}${endpointPath(ENDPOINTS.getRun, { id })}${query}`;
const countsOf = (d: RunDetail) => d.curve.map((p) => [p.level, p.requests]);

/** The stream's snapshots, read one at a time until one satisfies `done`. */
function snapshots(res: Response) {
  const events = readEvents(res);
  const seen: RunDetail[] = [];
  return {
    seen,
    events,
    async until(done: (d: RunDetail) => boolean): Promise<RunDetail> {
      for (;;) {
        const e = await events.next();
        expect(e.value?.event).toBe(LIVE_EVENT.snapshot);
        const d = RunDetail.parse(JSON.parse(e.value?.data ?? ''));
        seen.push(d);
        if (done(d)) return d;
      }
    },
    async rest(): Promise<SseEvent[]> {
      const all: SseEvent[] = [];
      for await (const e of events) all.push(e);
      return all;
    },
  };
}

// Both stores: the embedded one shows batches from its figures in memory (the whole run's, so each
// named snapshot is read from storage), a server's changes are seen through its change marks.
describe.each(STORAGE_MODES)('GET /api/v1/runs/{id}/live?name= (%s)', (mode) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ mode });
  }, 120_000);
  afterAll(async () => api?.close());

  it("streams one request name's curve while the run runs, the whole run's stream unchanged", async () => {
    const runId = await createRun(api.url);
    const t0 = Date.now() - 60_000;
    const post = async (level: number, i: number) => {
      const from = t0 + i * 5_000 + 0.5;
      expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level, started_at: from, measure_from: from, ended_at: from + WINDOW_MS })).status).toBe(200);
      expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, levelBatch(level, from))).body).toEqual({ accepted: COUNTS[level]!.search + COUNTS[level]!.cart, duplicate: false });
    };
    await post(1, 0);

    const namedRes = await fetch(liveUrl(api, runId, `?name=${encodeURIComponent('cart')}`));
    expect(namedRes.status).toBe(200);
    expect(namedRes.headers.get('content-type')).toContain('text/event-stream');
    const named = snapshots(namedRes);
    const total = snapshots(await fetch(liveUrl(api, runId)));

    // On connect: cart's curve, exactly what GET /runs/{id}?name=cart answers (read from storage both).
    const first = await named.until(() => true);
    expect(first).toEqual(RunDetail.parse(await (await fetch(getUrl(api, runId, '?name=cart'))).json()));
    expect(first.name).toBe('cart');
    expect(countsOf(first)).toEqual([[1, COUNTS[1]!.cart]]);
    expect((await total.until(() => true)).curve.map((p) => p.requests)).toEqual([COUNTS[1]!.search + COUNTS[1]!.cart]);

    // The next level: the named stream grows with cart's requests, the whole run's with everyone's.
    await post(2, 1);
    const grown = await named.until((d) => d.curve.some((p) => p.level === 2 && p.requests === COUNTS[2]!.cart));
    expect(grown.run.status).toBe('running');
    expect(countsOf(grown)).toEqual([[1, COUNTS[1]!.cart], [2, COUNTS[2]!.cart]]);
    const whole = await total.until((d) => d.curve.some((p) => p.level === 2 && p.requests === COUNTS[2]!.search + COUNTS[2]!.cart));
    expect(whole.name).toBeUndefined();
    expect(countsOf(whole)).toEqual([[1, COUNTS[1]!.search + COUNTS[1]!.cart], [2, COUNTS[2]!.search + COUNTS[2]!.cart]]);

    // The end: the last named snapshot is GET /runs/{id}?name=cart's answer, the last whole one GET /runs/{id}'s.
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.finishRun, { id: runId })}`, {})).status).toBe(200);
    const [namedRest, totalRest] = await Promise.all([named.rest(), total.rest()]);
    for (const rest of [namedRest, totalRest]) expect(rest.at(-1)?.event).toBe(LIVE_EVENT.end);
    const lastNamed = RunDetail.parse(JSON.parse(namedRest.at(-2)?.data ?? ''));
    const lastTotal = RunDetail.parse(JSON.parse(totalRest.at(-2)?.data ?? ''));
    expect(lastNamed.run.status).toBe('finished');
    expect(lastNamed).toEqual(RunDetail.parse(await (await fetch(getUrl(api, runId, '?name=cart'))).json()));
    expect(lastTotal).toEqual(RunDetail.parse(await (await fetch(getUrl(api, runId))).json()));

    // Never the whole run's curve on the named stream, never a name on the whole run's.
    const allNamed = [...named.seen, ...namedRest.filter((e) => e.event === LIVE_EVENT.snapshot).map((e) => RunDetail.parse(JSON.parse(e.data)))];
    for (const d of allNamed) {
      expect(d.name).toBe('cart');
      for (const p of d.curve) expect(p.requests).toBeLessThanOrEqual(COUNTS[p.level]!.cart);
    }
    const allTotal = [...total.seen, ...totalRest.filter((e) => e.event === LIVE_EVENT.snapshot).map((e) => JSON.parse(e.data) as object)];
    for (const d of allTotal) expect(Object.keys(d)).not.toContain('name');
  }, 120_000);

  it('refuses a bad name with a 400 naming `name`, and an unknown one as GET /runs/{id}?name= does', async () => {
    const runId = await createRun(api.url);
    const from = Date.now() - 30_000;
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level: 1, started_at: from, measure_from: from, ended_at: from + WINDOW_MS })).status).toBe(200);
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, levelBatch(1, from))).status).toBe(200);

    // The rules of GET /runs/{id}?name=: the same 400, naming the query's `name`.
    for (const bad of ['cart\u0001', 'x'.repeat(201), '']) {
      const query = `?name=${encodeURIComponent(bad)}`;
      const [live, get] = await Promise.all([fetch(liveUrl(api, runId, query)), fetch(getUrl(api, runId, query))]);
      expect(live.status).toBe(400);
      expect(live.headers.get('content-type')).toContain('application/json');
      const body = (await live.json()) as { field?: string };
      expect(body.field).toBe('querystring.name');
      expect(body).toEqual(await get.json());
    }

    // A well-formed name the run does not carry: the same answer as the run's detail gives.
    const unknown = `?name=${encodeURIComponent('checkout <b>"x"</b>')}`;
    const [live, get] = await Promise.all([fetch(liveUrl(api, runId, unknown)), fetch(getUrl(api, runId, unknown))]);
    expect(get.status).toBe(404);
    expect(live.status).toBe(404);
    const body = (await live.json()) as { field?: string };
    expect(body).toEqual(await get.json());
    expect(body.field).toBe('name');

    // A name the run carries answers its stream, which ends at once for a finished run; with `slo=`
    // the capacity is the whole run's (the analysis' answer), whichever name's curve is shown.
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.finishRun, { id: runId })}`, {})).status).toBe(200);
    const slo = encodeURIComponent('p99<=50ms');
    const all: SseEvent[] = [];
    for await (const e of readEvents(await fetch(liveUrl(api, runId, `?name=search&slo=${slo}`)))) all.push(e);
    expect(all.map((e) => e.event)).toEqual([LIVE_EVENT.snapshot, LIVE_EVENT.end]);
    const snapshot = JSON.parse(all[0]!.data) as { capacity?: unknown };
    expect(countsOf(RunDetail.parse(snapshot))).toEqual([[1, COUNTS[1]!.search]]);
    const analysis = (await (await fetch(`${api.url}${endpointPath(ENDPOINTS.runAnalysis, { id: runId })}?slo=${slo}`)).json()) as { capacity?: unknown };
    expect(analysis.capacity).toBeDefined();
    expect(snapshot.capacity).toEqual(analysis.capacity);
  }, 60_000);

  it("tells a name's viewer the run ended when that name's last read fails, and keeps quiet while it runs", async () => {
    const runId = await createRun(api.url);
    const from = Date.now() - 30_000;
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level: 1, started_at: from, measure_from: from, ended_at: from + WINDOW_MS })).status).toBe(200);
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, levelBatch(1, from))).status).toBe(200);
    const detail = (await loadRunDetail(api.db, runId))!;
    // A snapshot of a run storage no longer has (deleted meanwhile): the named read fails with a 404.
    const gone = (status: RunDetail['run']['status']): RunDetail => ({ ...detail, run: { ...detail.run, id: randomUUID(), status } });
    const seen: Array<['snapshot', LiveSnapshot] | ['end', string] | ['error', unknown]> = [];
    const send = capacitySender(api.db, {
      slos: null,
      name: 'cart',
      write: (s) => seen.push(['snapshot', s]),
      end: (status) => seen.push(['end', status]),
      onError: (err) => seen.push(['error', err]),
    });
    const settled = async (n: number) => {
      for (let i = 0; i < 200 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 25));
    };
    // While the run runs, a failed read sends nothing: the next snapshot reads again.
    send(gone('running'));
    await settled(1);
    expect(seen.map(([kind]) => kind)).toEqual(['error']);
    // On the run's last snapshot it sends the end, so the viewer's client reads the final state itself.
    send(gone('finished'));
    await settled(3);
    expect(seen.map(([kind]) => kind)).toEqual(['error', 'error', 'end']);
    expect(seen[2]).toEqual(['end', 'finished']);
  }, 60_000);
});
