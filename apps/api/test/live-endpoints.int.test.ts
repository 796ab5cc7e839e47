import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointPath, ENDPOINTS, LIVE_EVENT, RunDetail, type EventBatch } from '@kneeboard/contracts';
import { createRun, postJson, prng, STORAGE_MODES, startTestApi, type TestApi } from './helpers.ts';
import { readEvents, type SseEvent } from './sse.ts';

/** A mix of three endpoints; checkout's service time grows with the level, the others' do not. */
const SERVICE_MS = { search: 4, cart: 12, checkout: 40 } as const;
type Name = keyof typeof SERVICE_MS;
const NAMES = Object.keys(SERVICE_MS) as Name[];
const LEVELS = [1, 2, 4];
const WINDOW_MS = 3_000;
const PER_LEVEL = 1_500;

function levelBatch(level: number, from: number): EventBatch & { name: string[] } {
  const rand = prng(level);
  const rows = Array.from({ length: PER_LEVEL }, (_, k) => {
    const name = NAMES[k % NAMES.length]!;
    return { name, ts: from + ((k + 0.5) * WINDOW_MS) / PER_LEVEL, latency: SERVICE_MS[name] * (name === 'checkout' ? level : 1) * Math.exp((rand() - 0.5) * 1.2) };
  });
  return {
    batch_id: `level-${level}`,
    agent_id: 'mix-agent',
    level: rows.map(() => level),
    ts_ms: rows.map((r) => r.ts),
    latency_ms: rows.map((r) => r.latency),
    compute_ms: rows.map(() => null),
    queue_ms: rows.map(() => null),
    status: rows.map(() => 200),
    name: rows.map((r) => r.name),
  };
}

// Both stores: the embedded one re-reads storage when a step starts or the run goes quiet, a server
// is watched through its change marks (one query a second) — two paths to the snapshots read from storage.
describe.each(STORAGE_MODES)('GET /api/v1/runs/{id}/live with request names (%s)', (mode) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ mode });
  }, 120_000);
  afterAll(async () => api?.close());

  it('carries the endpoints as they stand while the run goes on, and at the end what GET /runs/{id} says', async () => {
    const runId = await createRun(api.url);
    const events = readEvents(await fetch(`${api.url}/api/v1/runs/${runId}/live`));
    const snapshots: RunDetail[] = [];
    const next = async () => {
      const e = await events.next();
      expect(e.value?.event).toBe(LIVE_EVENT.snapshot);
      const d = RunDetail.parse(JSON.parse(e.value?.data ?? ''));
      snapshots.push(d);
      return d;
    };
    await next();
    const t0 = Date.now() - 60_000;
    for (const [i, level] of LEVELS.entries()) {
      const from = t0 + i * 5_000 + 0.5;
      expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level, started_at: from, measure_from: from, ended_at: from + WINDOW_MS })).status).toBe(200);
      expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, levelBatch(level, from))).body).toEqual({ accepted: PER_LEVEL, duplicate: false });
      // The snapshot that shows this level's requests, and (while running) its endpoints as far as the run has got.
      for (;;) {
        const d = await next();
        if (d.curve.some((p) => p.level === level && p.requests === PER_LEVEL) && d.endpoints?.endpoints.length === NAMES.length) break;
      }
    }
    const running = snapshots.at(-1)!;
    expect(running.run.status).toBe('running');
    expect(running.endpoints?.dominates_p99).toBe('checkout');

    await postJson(`${api.url}${endpointPath(ENDPOINTS.finishRun, { id: runId })}`, {});
    const rest: SseEvent[] = [];
    for await (const e of events) rest.push(e);
    expect(rest.at(-1)?.event).toBe(LIVE_EVENT.end);
    const last = RunDetail.parse(JSON.parse(rest.at(-2)?.data ?? ''));
    expect(last.run.status).toBe('finished');
    const fetched = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    expect(fetched.endpoints).toBeDefined();
    expect(last.endpoints).toEqual(fetched.endpoints);

    // Once a snapshot carried the endpoints, every later one does (a snapshot from memory gets the last analysis).
    const all = [...snapshots, ...rest.filter((e) => e.event === LIVE_EVENT.snapshot).map((e) => RunDetail.parse(JSON.parse(e.data)))];
    const firstWith = all.findIndex((d) => d.endpoints !== undefined);
    expect(firstWith).toBeGreaterThan(0);
    expect(all.slice(firstWith).every((d) => d.endpoints !== undefined)).toBe(true);
    // Before any request carried a name, nothing was said about endpoints.
    expect(all[0]!.endpoints).toBeUndefined();
  });

  it('leaves a run without names as before: no endpoints in its snapshots', async () => {
    const runId = await createRun(api.url);
    await postJson(`${api.url}${endpointPath(ENDPOINTS.finishRun, { id: runId })}`, {});
    const all: SseEvent[] = [];
    for await (const e of readEvents(await fetch(`${api.url}/api/v1/runs/${runId}/live`))) all.push(e);
    expect(all.map((e) => e.event)).toEqual([LIVE_EVENT.snapshot, LIVE_EVENT.end]);
    expect(Object.keys(JSON.parse(all[0]!.data) as object)).not.toContain('endpoints');
  });
});
