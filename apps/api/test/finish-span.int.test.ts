import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Run } from '@kneeboard/contracts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';

/** A short grace period: a repeated finish after it is refused unless it repeats the same span. */
const GRACE_MS = 500;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ingest: { lateDataGraceMs: GRACE_MS, spanTtlMs: 0 } });
});
afterAll(async () => api?.close());

const finish = (runId: string, body: unknown) => postJson(`${api.url}/api/v1/runs/${runId}/finish`, body);
const getRun = async (runId: string) => Run.parse(((await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json()) as { run: unknown }).run);

describe('a finish may give the test’s own span (an import of a file written earlier)', () => {
  it('becomes the run’s start and end, in whole ms rounded outwards; a repeat of it is a replay however late', async () => {
    const runId = await createRun(api.url);
    const started = Date.now() - 3 * 86_400_000 + 0.4;
    const ended = started + 9_100.2;
    const res = await finish(runId, { status: 'finished', started_at: started, finished_at: ended });
    expect(res.status).toBe(200);
    const run = await getRun(runId);
    expect([run.created_at, run.finished_at]).toEqual([Math.floor(started), Math.ceil(ended)]);
    await new Promise((r) => setTimeout(r, GRACE_MS + 100));
    expect((await finish(runId, { status: 'finished', started_at: started, finished_at: ended })).status).toBe(200);
    expect((await finish(runId, { status: 'finished' })).status).toBe(409);
  });

  it('only the start (an aborted import): the end is the API’s clock', async () => {
    const runId = await createRun(api.url);
    const started = Date.now() - 60_000;
    const before = Date.now();
    expect((await finish(runId, { status: 'aborted', started_at: started })).status).toBe(200);
    const run = await getRun(runId);
    expect(run.created_at).toBe(started);
    expect(run.finished_at).toBeGreaterThanOrEqual(before);
  });

  it.each([
    ['a start in the future', () => ({ started_at: Date.now() + 3_600_000 }), 'started_at'],
    ['an end in the future', () => ({ started_at: Date.now() - 1000, finished_at: Date.now() + 3_600_000 }), 'finished_at'],
    ['an end before the start', () => ({ started_at: Date.now() - 1000, finished_at: Date.now() - 2000 }), 'finished_at'],
    ['an end without a start', () => ({ finished_at: Date.now() - 1000 }), 'started_at'],
    ['a start before 2000', () => ({ started_at: 1000 }), 'started_at'],
  ])('refuses %s with a 400 naming the field, and leaves the run running', async (_what, span, field) => {
    const runId = await createRun(api.url);
    const res = await finish(runId, { status: 'finished', ...span() });
    expect(res.status).toBe(400);
    expect(ApiError.parse(res.body).field).toBe(field);
    expect((await getRun(runId)).status).toBe('running');
  });
});
