import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickHouseServer, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { ApiError } from '@kneeboard/contracts';
import { createRun, startTestApi, type TestApi } from './helpers.ts';

describe('ClickHouse unreachable', () => {
  let server: ClickHouseServer;
  let api: TestApi;
  beforeAll(async () => {
    server = await startClickHouseServer();
    api = await startTestApi({ mode: 'server', server });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await server?.stop();
  });

  it('reads answer 503 with Retry-After (not 500), and /readyz says which check failed', async () => {
    const runId = await createRun(api.url);
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
    await server.kill();
    try {
      const res = await fetch(`${api.url}/api/v1/runs/${runId}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(ApiError.parse(await res.json()).message).toContain('unreachable');
      const ready = await fetch(`${api.url}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { ready: boolean; checks: { clickhouse: { ok: boolean; message: string } } };
      expect(body.ready).toBe(false);
      expect(body.checks.clickhouse.ok).toBe(false);
    } finally {
      await server.restart();
    }
    expect((await fetch(`${api.url}/api/v1/runs/${runId}`)).status).toBe(200);
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
  }, 60_000);
});
