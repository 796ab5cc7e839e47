import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, countRollupRequests, readLedger } from '@kneeboard/clickhouse';
import { buildApp } from '../src/app.ts';
import { createRun, postJson, STORAGE_MODES, startTestApi, type TestApi } from './helpers.ts';
import { arrowOf, postArrow, randomBatch, stepAt } from './ingest-support.ts';

describe.each(STORAGE_MODES)('exactly once, with batches written concurrently (%s)', (mode) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ mode });
  });
  afterAll(async () => api?.close());

  async function newRun(): Promise<string> {
    const runId = await createRun(api.url);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
    return runId;
  }
  const send = (runId: string, b: ReturnType<typeof randomBatch>) => postJson(`${api.url}/api/v1/runs/${runId}/events`, b);

  it('stores two different batches in a row, then a replay of each once', async () => {
    const runId = await newRun();
    const a = randomBatch('a', 500, 1);
    const b = randomBatch('b', 700, 2);
    expect((await send(runId, a)).body).toEqual({ accepted: 500, duplicate: false });
    // As Arrow, the second: a different encoding must not be a different rule.
    expect((await postArrow(api.url, runId, arrowOf(b), { batch_id: 'b', agent_id: 'test-agent' })).body).toEqual({ accepted: 700, duplicate: false });
    expect(await countRequests(api.db, runId)).toBe(1200);
    expect((await send(runId, a)).body).toEqual({ accepted: 0, duplicate: true });
    expect((await postArrow(api.url, runId, arrowOf(a), { batch_id: 'a', agent_id: 'test-agent' })).body).toEqual({ accepted: 0, duplicate: true });
    expect((await send(runId, b)).body).toEqual({ accepted: 0, duplicate: true });
    expect(await countRequests(api.db, runId)).toBe(1200);
    expect(await countRollupRequests(api.db, runId)).toBe(1200);
  });

  it('stores a batch once when it is sent among others, several copies at the same time, then replayed', async () => {
    const runId = await newRun();
    const batches = Array.from({ length: 12 }, (_, i) => randomBatch(`c${i}`, 1000 + i, 100 + i));
    const x = batches[5]!;
    const first = await Promise.all([...batches.map((b) => send(runId, b)), send(runId, x), send(runId, x)]);
    expect(first.every((r) => r.status === 200)).toBe(true);
    const copiesOfX = first.filter((_, i) => i === 5 || i >= batches.length);
    expect(copiesOfX.filter((r) => (r.body as { duplicate: boolean }).duplicate === false)).toHaveLength(1);
    const total = batches.reduce((s, b) => s + b.level.length, 0);
    expect(await countRequests(api.db, runId)).toBe(total);
    // The replay arrives interleaved with new batches.
    const more = [randomBatch('d0', 300, 200), randomBatch('d1', 300, 201)];
    const replay = await Promise.all([send(runId, more[0]!), send(runId, x), send(runId, more[1]!)]);
    expect(replay[1]!.body).toEqual({ accepted: 0, duplicate: true });
    expect(await countRequests(api.db, runId)).toBe(total + 600);
    // The rollup view's block of a dropped copy is dropped too.
    expect(await countRollupRequests(api.db, runId)).toBe(total + 600);
  });

  it('stores a replay once in a process that forgot everything (a restart, a replica): the engine drops it at once, the ledger names it a duplicate', async () => {
    const runId = await newRun();
    const b = randomBatch('r', 800, 300);
    expect((await send(runId, b)).status).toBe(200);
    // A second app on the same storage: a new process as far as the write path's caches go. On a
    // server, before the background ledger write, only the engine's deduplication knows the batch;
    // embedded, the ledger row was written before the events. Either way: stored once.
    const early = await buildApp({ db: api.db });
    const earlyUrl = await early.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await postJson(`${earlyUrl}/api/v1/runs/${runId}/events`, b)).status).toBe(200);
      expect(await countRequests(api.db, runId)).toBe(800);
      expect(await countRollupRequests(api.db, runId)).toBe(800);
    } finally {
      await early.close();
    }
    // The ledger row is written within a quarter second; from then on another process answers `duplicate`.
    const deadline = Date.now() + 10_000;
    while (!(await readLedger(api.db, runId)).some((r) => r.batch_id === 'r') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const fresh = await buildApp({ db: api.db });
    const url = await fresh.listen({ port: 0, host: '127.0.0.1' });
    try {
      const res = await postJson(`${url}/api/v1/runs/${runId}/events`, b);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ accepted: 0, duplicate: true });
      expect(await countRequests(api.db, runId)).toBe(800);
      expect(await countRollupRequests(api.db, runId)).toBe(800);
    } finally {
      await fresh.close();
    }
  });

  it('answers 409 to a batch_id reused for different events, and writes nothing', async () => {
    const runId = await newRun();
    expect((await send(runId, randomBatch('same-id', 400, 400))).status).toBe(200);
    const res = await send(runId, randomBatch('same-id', 400, 401));
    expect(res.status).toBe(409);
    expect((res.body as { field: string }).field).toBe('batch_id');
    expect(await countRequests(api.db, runId)).toBe(400);
  });

  it('treats the same batch_id in another run as another batch', async () => {
    const [r1, r2] = [await newRun(), await newRun()];
    const b = randomBatch('shared', 250, 500);
    expect((await send(r1, b)).body).toEqual({ accepted: 250, duplicate: false });
    expect((await send(r2, b)).body).toEqual({ accepted: 250, duplicate: false });
    expect([await countRequests(api.db, r1), await countRequests(api.db, r2)]).toEqual([250, 250]);
  });
});
