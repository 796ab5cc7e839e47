import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@clickhouse/client';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { startServerProcess, type ServerProcess } from '../testing/spawn.ts';
import { createRun, postJson, prng } from './helpers.ts';
import { randomBatch, stepAt } from './ingest-support.ts';

/**
 * The write path without process-global state: two API processes on one ClickHouse server, no
 * lock shared between them, ingest the same run while every batch is also sent to the other one —
 * at the same time, or later — and ClickHouse ends up with every event exactly once.
 */
describe('two API replicas on one ClickHouse server', () => {
  let server: ClickHouseServer;
  let replicas: ServerProcess[] = [];
  const database = 'kb_replicas';

  beforeAll(async () => {
    server = await startClickHouseServer();
    const admin = createClient({ url: server.url });
    await admin.command({ query: `CREATE DATABASE ${database}` });
    await admin.close();
    const env = { CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: database };
    // One after the other: the first applies the migrations, the second finds them applied.
    replicas = [await startServerProcess(env, 60_000)];
    replicas.push(await startServerProcess(env, 60_000));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await server?.stop();
  });

  it('stores every event exactly once while replays go to both', async () => {
    const [a, b] = replicas.map((r) => r.url) as [string, string];
    const runId = await createRun(a);
    expect((await postJson(`${b}/api/v1/runs/${runId}/steps`, stepAt(1))).status).toBe(200);

    const batches = Array.from({ length: 40 }, (_, i) => randomBatch(`batch-${i}`, 2_000, i + 1));
    const rand = prng(42);
    const sends: Array<() => Promise<{ status: number; body: unknown }>> = [];
    for (const batch of batches) {
      const [first, other] = rand() < 0.5 ? [a, b] : [b, a];
      sends.push(() => postJson(`${first}/api/v1/runs/${runId}/events`, batch));
      sends.push(() => postJson(`${other}/api/v1/runs/${runId}/events`, batch));
    }
    // Eight at a time, in a shuffled order: a batch and its replay are often in flight together.
    const order = sends.map((s, i) => ({ s, k: rand() + (i % 2) * 0.3 })).sort((x, y) => x.k - y.k).map((x) => x.s);
    const answers: Array<{ status: number; body: unknown }> = [];
    for (let i = 0; i < order.length; i += 8) answers.push(...(await Promise.all(order.slice(i, i + 8).map((s) => s()))));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    // Later replays, half to each replica.
    const late = await Promise.all(batches.slice(0, 10).map((batch, i) => postJson(`${[a, b][i % 2]}/api/v1/runs/${runId}/events`, batch)));
    expect(late.every((r) => r.status === 200)).toBe(true);

    const client = createClient({ url: server.url, database });
    try {
      const result = await client.query({
        query: 'SELECT count() AS n, uniqExact(ts_ms) AS distinct_events FROM kb_request_events_v1 WHERE run_id = {run:UUID}',
        query_params: { run: runId },
        format: 'JSONEachRow',
      });
      const [row] = (await result.json()) as Array<{ n: string | number; distinct_events: string | number }>;
      expect([Number(row?.n), Number(row?.distinct_events)]).toEqual([80_000, 80_000]);
    } finally {
      await client.close();
    }
  });
});
