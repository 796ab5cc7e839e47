import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests } from '@kneeboard/clickhouse';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { randomBatch, stepAt } from './ingest-support.ts';

describe('a batch that fails in storage', () => {
  let server: ClickHouseServer;
  let api: TestApi;
  beforeAll(async () => {
    server = await startClickHouseServer();
    api = await startTestApi({ mode: 'server', server });
  });
  afterAll(async () => {
    await api?.close();
    await server?.stop();
  });

  it('is answered 503 with Retry-After while ClickHouse is down, and its retry is stored once', async () => {
    const runId = await createRun(api.url);
    await postJson(`${api.url}/api/v1/runs/${runId}/steps`, stepAt(1));
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, randomBatch('before', 100, 1))).status).toBe(200);

    await server.kill();
    const batch = randomBatch('during', 5_000, 2);
    const res = await fetch(`${api.url}/api/v1/runs/${runId}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    await server.restart();

    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batch)).body).toEqual({ accepted: 5_000, duplicate: false });
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/events`, batch)).body).toEqual({ accepted: 0, duplicate: true });
    expect(await countRequests(api.db, runId)).toBe(5_100);
  });
});
