import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests } from '@kneeboard/clickhouse';
import { ApiError } from '@kneeboard/contracts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { randomBatch, stepAt, T0 } from './ingest-support.ts';

/** A short grace period, so "after the grace period" is a wait of a second, not ten minutes. */
const GRACE_MS = 1_500;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ingest: { lateDataGraceMs: GRACE_MS, spanTtlMs: 0 } });
});
afterAll(async () => api?.close());

const post = (runId: string, what: string, body: unknown) => postJson(`${api.url}/api/v1/runs/${runId}/${what}`, body);

describe('numbers bounded to what is physically meaningful (400 naming the column, nothing written)', () => {
  it.each([
    ['a completion time of 1e22', { ts_ms: [1e22] }, 'ts_ms[0]'],
    ['a completion time a day after the run', { ts_ms: [T0 + 3_600_000 + 86_400_000] }, 'ts_ms[0]'],
    ['a completion time a day before the run', { ts_ms: [T0 - 86_400_000] }, 'ts_ms[0]'],
    ['a latency of Number.MAX_VALUE ms', { latency_ms: [Number.MAX_VALUE] }, 'latency_ms[0]'],
    ['a queue time over a day', { queue_ms: [86_400_001] }, 'queue_ms[0]'],
    ['a level of 1e308', { level: [1e308] }, 'level[0]'],
  ])('%s', async (_what, override, field) => {
    const runId = await createRun(api.url);
    await post(runId, 'steps', stepAt(1));
    const res = await post(runId, 'events', { ...randomBatch('x', 1, 1), ...override });
    expect(res.status).toBe(400);
    expect(ApiError.parse(res.body).field).toBe(field);
    expect(await countRequests(api.db, runId)).toBe(0);
  });

  it('a latency written as 1.8e308 in the JSON text (it parses to Infinity)', async () => {
    const runId = await createRun(api.url);
    await post(runId, 'steps', stepAt(1));
    const text = JSON.stringify({ ...randomBatch('inf', 1, 1), latency_ms: [12345] }).replace('12345', '1.8e308');
    const res = await fetch(`${api.url}/api/v1/runs/${runId}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(res.status).toBe(400);
    expect(ApiError.parse(await res.json()).field).toBe('latency_ms[0]');
    expect(await countRequests(api.db, runId)).toBe(0);
  });

  it('a step window in the year 33658 or at level 1e308', async () => {
    const runId = await createRun(api.url);
    expect(ApiError.parse((await post(runId, 'steps', { ...stepAt(1), ended_at: 1e15 })).body).field).toBe('ended_at');
    expect(ApiError.parse((await post(runId, 'steps', stepAt(1e308))).body).field).toBe('level');
  });

  it('accepts events near the steps of an imported run, however long ago', async () => {
    const runId = await createRun(api.url);
    const lastYear = Date.now() - 365 * 86_400_000;
    await post(runId, 'steps', { level: 1, started_at: lastYear, measure_from: lastYear, ended_at: lastYear + 60_000 });
    const res = await post(runId, 'events', { ...randomBatch('old', 2, 1), ts_ms: [lastYear + 1, lastYear + 59_999] });
    expect(res.body).toEqual({ accepted: 2, duplicate: false });
  });
});

describe('run lifecycle: a finished run takes late data within the grace period, then 409', () => {
  it('accepts a late batch and step just after the finish, refuses them after the grace period', async () => {
    const runId = await createRun(api.url);
    await post(runId, 'steps', stepAt(1));
    expect((await post(runId, 'finish', { status: 'finished' })).status).toBe(200);
    expect((await post(runId, 'events', randomBatch('late', 10, 1))).body).toEqual({ accepted: 10, duplicate: false });
    expect((await post(runId, 'steps', stepAt(2))).status).toBe(200);
    expect((await post(runId, 'finish', { status: 'finished' })).status).toBe(200);

    await new Promise((r) => setTimeout(r, GRACE_MS + 200));
    const late = await post(runId, 'events', randomBatch('too-late', 10, 2));
    expect(late.status).toBe(409);
    expect(ApiError.parse(late.body).message).toMatch(/accepted until/);
    expect((await post(runId, 'steps', stepAt(3))).status).toBe(409);
    expect((await post(runId, 'finish', { status: 'finished' })).status).toBe(409);
    expect(await countRequests(api.db, runId)).toBe(10);
  });

  it('refuses to re-finish a run as something else at once', async () => {
    const runId = await createRun(api.url);
    await post(runId, 'finish', { status: 'aborted' });
    const res = await post(runId, 'finish', { status: 'finished' });
    expect(res.status).toBe(409);
    expect(ApiError.parse(res.body).field).toBe('status');
  });
});
