import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@clickhouse/client';
import { countRequests, countRollupRequests, openDb, recentlyDeletedRuns, runRowsLeft, type Db } from '@kneeboard/clickhouse';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { startServerProcess, type ServerProcess } from '../testing/spawn.ts';
import { batchOf, createRun, postJson, STORAGE_MODES, startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';
import { stepAt } from './ingest-support.ts';

describe.each(STORAGE_MODES)('DELETE /api/v1/runs/{id} (%s)', (mode) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ mode });
  });
  afterAll(async () => api.close());

  it('removes the run, its steps and every raw event; other runs are untouched; the id then answers 404', async () => {
    const doomed = await storeSyntheticRun(api.url, { seed: 1, release: 'bad', service: 'del-svc', levels: [1, 2], seconds: 1 });
    const kept = await storeSyntheticRun(api.url, { seed: 2, release: 'good', service: 'del-svc', levels: [1, 2], seconds: 1 });
    const keptEvents = await countRequests(api.db, kept);
    expect(await countRequests(api.db, doomed)).toBeGreaterThan(0);

    const res = await fetch(`${api.url}/api/v1/runs/${doomed}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await countRequests(api.db, doomed)).toBe(0);
    expect(await countRollupRequests(api.db, doomed)).toBe(0);
    // Every read of the run answers 404 once it is gone (schemathesis found /agents answering 200).
    for (const path of ['', '.png', '/agents', '/analysis', '/curve.csv', '/curve.svg', '/fleet', '/levels/1', '/live']) {
      expect((await fetch(`${api.url}/api/v1/runs/${doomed}${path}`)).status, `GET /runs/{id}${path}`).toBe(404);
    }
    const list = (await (await fetch(`${api.url}/api/v1/runs?service=del-svc`)).json()) as { runs: Array<{ id: string }> };
    expect(list.runs.map((r) => r.id)).toEqual([kept]);
    expect(await countRequests(api.db, kept)).toBe(keptEvents);

    // A spooling agent's late batch for the deleted run is refused, not resurrected.
    const late = await postJson(`${api.url}/api/v1/runs/${doomed}/events`, batchOf([{ level: 1, ts: 1_800_001_000_500, latency: 5 }], 'late-batch'));
    // (The events route names an unknown run as a bad `id`, as for any run that never existed.)
    expect(late.status).toBe(400);
    expect(JSON.stringify(late.body)).toContain('unknown run');
    expect((await fetch(`${api.url}/api/v1/runs/${doomed}`, { method: 'DELETE' })).status).toBe(404);
  }, 120_000);
});

/**
 * A sender keeps writing while the run is deleted: the deletion wins. Every batch is a fresh one
 * (its own id), sent one after the other by each of two senders, bounded in count.
 */
/** n events at level 1 with seeded latencies (compute and queue within them): a valid batch. */
function raceBatch(batchId: string, n: number, seed: number) {
  return batchOf(
    Array.from({ length: n }, (_, i) => {
      const latency = 1 + ((seed * 31 + i * 7) % 100);
      return { level: 1, ts: stepAt(1).started_at + (seed % 1_000) * 1_000 + i * 0.5, latency, compute: latency * 0.5, queue: latency * 0.1 };
    }),
    batchId,
  );
}

interface Send {
  status: number;
  startedAt: number;
  answeredAt: number;
  body: unknown;
}

async function raceDelete(writeTo: readonly string[], deleteAt: string, runId: string): Promise<{ deleteStatus: number; deletedAt: number; sends: Send[] }> {
  const sends: Send[] = [];
  let deletedAt = Number.POSITIVE_INFINITY;
  let deleteStatus = 0;
  let deleting = false;
  let sent = 0;
  /**
   * Sends until 8 batches have been sent after the deletion answered. A server's deletion waits
   * ~6 s for every replica's cache and refused batches answer in a millisecond or two, so a cap of
   * 400 ran out before the deletion answered on an idle box: once the deletion is on its way the
   * senders pace themselves (10 ms apart), and the cap only stops a runaway loop.
   */
  const sender = async (s: number) => {
    for (let i = 0; sent < 20_000 && sends.filter((x) => x.startedAt > deletedAt).length < 8; i++) {
      const url = writeTo[i % writeTo.length] as string;
      const startedAt = performance.now();
      sent++;
      const res = await postJson(`${url}/api/v1/runs/${runId}/events`, raceBatch(`race-${s}-${i}`, 1_000, s * 1_000 + i + 1));
      sends.push({ status: res.status, startedAt, answeredAt: performance.now(), body: res.body });
      if (deleting) await new Promise((r) => setTimeout(r, 10));
    }
  };
  const senders = Promise.all([sender(1), sender(2)]);
  // The deletion starts once the stream is flowing.
  while (sends.filter((x) => x.status === 200).length < 4) await new Promise((r) => setTimeout(r, 5));
  deleting = true;
  const res = await fetch(`${deleteAt}/api/v1/runs/${runId}`, { method: 'DELETE' });
  deleteStatus = res.status;
  deletedAt = performance.now();
  await senders;
  return { deleteStatus, deletedAt, sends };
}

function expectDeletionWon(r: Awaited<ReturnType<typeof raceDelete>>): void {
  expect(r.deleteStatus).toBe(204);
  // Nothing but stored or refused: no batch is told to retry a run that is gone.
  expect(r.sends.filter((x) => x.status !== 200 && x.status !== 400).map((x) => [x.status, x.body])).toEqual([]);
  // No acknowledgement once the deletion has answered, and every batch sent after it is refused.
  expect(r.sends.filter((x) => x.status === 200 && x.answeredAt > r.deletedAt)).toEqual([]);
  const after = r.sends.filter((x) => x.startedAt > r.deletedAt);
  expect(after.length).toBeGreaterThanOrEqual(8);
  for (const x of after) {
    expect(x.status).toBe(400);
    expect(JSON.stringify(x.body)).toContain('unknown run');
  }
  expect(r.sends.filter((x) => x.status === 200).length).toBeGreaterThanOrEqual(4);
}

describe('DELETE racing an ingest (embedded)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => api.close());

  it('refuses every later batch and leaves no row of the run in any table', async () => {
    const runId = await createRun(api.url, { service: 'del-race' });
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
    const raced = await raceDelete([api.url], api.url, runId);
    expectDeletionWon(raced);
    expect(await runRowsLeft(api.db, runId)).toBe(0);
    expect(await recentlyDeletedRuns(api.db, 0)).toContain(runId);
  }, 120_000);
});

describe('DELETE on one API replica while another ingests (server)', () => {
  let server: ClickHouseServer;
  let replicas: ServerProcess[] = [];
  let db: Db;
  const database = 'kb_delete_race';

  beforeAll(async () => {
    server = await startClickHouseServer();
    const admin = createClient({ url: server.url });
    await admin.command({ query: `CREATE DATABASE ${database}` });
    await admin.close();
    const env = { CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: database };
    replicas = [await startServerProcess(env, 60_000)];
    replicas.push(await startServerProcess(env, 60_000));
    db = openDb({ mode: 'server', url: server.url, username: 'default', password: '', database });
  }, 180_000);
  afterAll(async () => {
    await db?.close();
    await Promise.all(replicas.map((r) => r.stop()));
    await server?.stop();
  });

  it('refuses every later batch on both replicas and leaves no row of the run in any table', async () => {
    const [a, b] = replicas.map((r) => r.url) as [string, string];
    const runId = await createRun(a, { service: 'del-race' });
    expect((await postJson(`${b}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);
    // Writes go to both replicas; the deletion to the first. Both have the run cached by then.
    const raced = await raceDelete([b, a], a, runId);
    expectDeletionWon(raced);
    expect(await runRowsLeft(db, runId)).toBe(0);
    // The other replica refuses a step and a batch too, from storage.
    expect((await postJson(`${b}/api/v1/runs/${runId}/steps`, stepAt(2))).status).toBe(400);
    expect((await postJson(`${b}/api/v1/runs/${runId}/events`, raceBatch('late', 10, 9))).status).toBe(400);
    expect(await runRowsLeft(db, runId)).toBe(0);
  }, 180_000);
});
