import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests } from '@kneeboard/clickhouse';
import { ApiError, MAX_BATCH_EVENTS } from '@kneeboard/contracts';
import { batchOf, createRun, postJson, startTestApi, type TestApi } from './helpers.ts';

let api: TestApi;
let runId: string;

beforeAll(async () => {
  api = await startTestApi();
  runId = await createRun(api.url);
});
afterAll(async () => api.close());

const good = () => batchOf([{ level: 1, ts: 1_700_000_000_000, latency: 12.5, compute: 10, queue: 1 }, { level: 1, ts: 1_700_000_000_001, latency: 13 }], 'b');

async function expectRejected(body: unknown, field: string, runPath = runId) {
  const res = await fetch(`${api.url}/api/v1/runs/${runPath}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  expect(res.status).toBe(400);
  const err = ApiError.parse(await res.json());
  expect(err.field).toBe(field);
  expect(err.message).toContain(field);
  expect(await countRequests(api.db, runId)).toBe(0);
  return err;
}

describe('POST /api/v1/runs/{id}/events rejects bad batches with a 400 naming the field, writing nothing', () => {
  it('unequal array lengths', async () => {
    const b = good();
    b.queue_ms = [1];
    const err = await expectRejected(b, 'queue_ms');
    expect(err.message).toMatch(/1 entries but level has 2/);
  });

  it('negative latency', async () => {
    const b = good();
    b.latency_ms = [12.5, -1];
    await expectRejected(b, 'latency_ms[1]');
  });

  it('NaN latency (as JSON cannot carry NaN, agents send it as a string or a bare token)', async () => {
    await expectRejected({ ...good(), latency_ms: [12.5, 'NaN'] }, 'latency_ms[1]');
    const raw = JSON.stringify(good()).replace('"latency_ms":[12.5,13]', '"latency_ms":[12.5,NaN]');
    await expectRejected(raw, 'body');
  });

  it('wrong types', async () => {
    await expectRejected({ ...good(), status: [200, '200'] }, 'status[1]');
    await expectRejected({ ...good(), level: 'one' }, 'level');
    await expectRejected({ ...good(), batch_id: 7 }, 'batch_id');
  });

  it('a missing field', async () => {
    const { ts_ms: _ts, ...rest } = good();
    await expectRejected(rest, 'ts_ms');
  });

  it('an unknown run', async () => {
    await expectRejected(good(), 'id', '6f1c1a64-1b7e-4a53-9a7d-3a6cbb0b0a11');
    await expectRejected(good(), 'params.id', 'not-a-uuid');
  });

  it('an oversize batch', async () => {
    const n = MAX_BATCH_EVENTS + 1;
    const rows = Array.from({ length: n }, (_, i) => ({ level: 1, ts: 1_700_000_000_000 + i, latency: 1 }));
    const err = await expectRejected(batchOf(rows, 'huge'), 'level');
    expect(err.message).toContain(String(MAX_BATCH_EVENTS));
  });

  it('an empty batch', async () => {
    await expectRejected(batchOf([], 'empty'), 'level');
  });

  it('accepts a good batch afterwards, so the checks above were not vacuous', async () => {
    const res = await postJson(`${api.url}/api/v1/runs/${runId}/events`, good());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 2, duplicate: false });
    expect(await countRequests(api.db, runId)).toBe(2);
  });
});

describe('other inputs', () => {
  it('a run needs a service and a release', async () => {
    const res = await postJson(`${api.url}/api/v1/runs`, { release: 'v1' });
    expect(res.status).toBe(400);
    expect(ApiError.parse(res.body).field).toBe('service');
  });

  it('a step window must not end before it measures', async () => {
    const res = await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 4, started_at: 1_700_000_001_000, measure_from: 1_700_000_002_000, ended_at: 1_700_000_001_500 });
    expect(res.status).toBe(400);
    expect(ApiError.parse(res.body).field).toBe('ended_at');
  });

  it('an unknown run is a 404 on read', async () => {
    const res = await fetch(`${api.url}/api/v1/runs/6f1c1a64-1b7e-4a53-9a7d-3a6cbb0b0a11`);
    expect(res.status).toBe(404);
  });

  it('serves OpenAPI generated from the schemas', async () => {
    const spec = (await (await fetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/api/v1/runs', '/api/v1/runs/{id}', '/api/v1/runs/{id}/events', '/api/v1/runs/{id}/steps', '/api/v1/runs/{id}/finish', '/api/v1/runs/{id}/live']),
    );
  });
});
