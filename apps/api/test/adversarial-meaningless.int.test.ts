import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, listRuns } from '@kneeboard/clickhouse';
import { ApiError, ARROW_STREAM_CONTENT_TYPE, RunDetail } from '@kneeboard/contracts';
import { allocateColumns, encodeArrowColumns } from '@kneeboard/event-wire';
import { patchBufferLength } from '@kneeboard/event-wire/testing';
import { batchOf, createRun, postJson, startTestApi, type TestApi } from './helpers.ts';

/**
 * The probe's requests that got through (issue: inputs the server cannot decode or that mean
 * nothing), each sent as it was: every one is a 400 naming the field, writes nothing, and no
 * answer names a path of the server.
 */
let api: TestApi;
let runId: string;
const NOW = Date.now();
const LEVEL = 8;

beforeAll(async () => {
  api = await startTestApi();
  runId = await createRun(api.url, { service: 'probe', release: 'v1' });
  const step = await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: LEVEL, started_at: NOW - 60_000, measure_from: NOW - 60_000, ended_at: null });
  expect(step.status).toBe(200);
});
afterAll(async () => api.close());

function columns(n = 4) {
  const c = allocateColumns(n);
  for (let i = 0; i < n; i++) {
    c.level[i] = LEVEL;
    c.ts_ms[i] = NOW - 1_000 + i;
    c.latency_ms[i] = 10 + i;
    c.compute_ms[i] = 9;
    c.queue_ms[i] = 0.5;
    c.status[i] = 200;
  }
  return c;
}

async function send(path: string, init: RequestInit): Promise<{ res: Response; body: unknown }> {
  const res = await fetch(`${api.url}${path}`, init);
  const text = await res.text();
  // No answer, whatever it says, names a file of the server.
  expect(text).not.toMatch(/\/dev\/shm|\/tmp\/|kneeboard-batch-|kb-api-test-/);
  return { res, body: JSON.parse(text) };
}

const arrow = (bytes: Uint8Array, query: string) =>
  send(`/api/v1/runs/${runId}/events?${query}`, { method: 'POST', headers: { 'content-type': ARROW_STREAM_CONTENT_TYPE }, body: bytes });
const json = (path: string, body: string | Uint8Array, method = 'POST') => send(path, { method, headers: { 'content-type': 'application/json' }, body });

async function expect400(p: Promise<{ res: Response; body: unknown }>, field: string, message: RegExp) {
  const { res, body } = await p;
  const err = ApiError.parse(body);
  expect({ status: res.status, field: err.field }).toEqual({ status: 400, field });
  expect(err.message).toMatch(message);
  // Final: nothing to retry, nothing telling the agent to.
  expect(res.headers.get('retry-after')).toBeNull();
  expect(err.message).not.toMatch(/send it again/);
}

describe('a malformed Arrow body is a 400 naming the problem, never a 503 to retry', () => {
  it.each([
    ['a buffer length patched to 2^40', 2n ** 40n, 'body', /outside its record batch's body/],
    ['a buffer length patched to 8', 8n, 'level', /values buffer has 8 bytes; 4 entries need 32/],
  ])('%s (3 times: the same answer each time)', async (_what, length, field, message) => {
    const bytes = patchBufferLength(encodeArrowColumns(columns()), 1, length);
    for (let i = 0; i < 3; i++) await expect400(arrow(bytes, `batch_id=patched-${length}&agent_id=probe`), field, message);
    expect(await countRequests(api.db, runId)).toBe(0);
  });

  it('stores a sound batch afterwards (the refusals were not a broken engine)', async () => {
    const { res } = await arrow(encodeArrowColumns(columns()), 'batch_id=sound&agent_id=probe');
    expect(res.status).toBe(200);
    expect(await countRequests(api.db, runId)).toBe(4);
  });
});

describe('values that mean nothing are refused naming the field', () => {
  const events = (over: Record<string, unknown>, batchId: string) =>
    JSON.stringify({ ...batchOf([{ level: LEVEL, ts: NOW - 500, latency: 20, compute: 15, queue: 1 }, { level: LEVEL, ts: NOW - 400, latency: 30 }], batchId), ...over });
  const eventsPath = () => `/api/v1/runs/${runId}/events`;

  it('events at level 2.5 when no step has that level (JSON and Arrow)', async () => {
    const before = await countRequests(api.db, runId);
    await expect400(json(eventsPath(), events({ level: [LEVEL, 2.5] }, 'lvl')), 'level[1]', /no step of the run has level 2.5 \(its steps: 8\)/);
    const c = columns();
    c.level[2] = 2.5;
    await expect400(arrow(encodeArrowColumns(c), 'batch_id=lvl-arrow&agent_id=probe'), 'level[2]', /no step of the run has level 2.5/);
    expect(await countRequests(api.db, runId)).toBe(before);
  });

  it('compute_ms or queue_ms larger than latency_ms (beyond 1 ms or 1%)', async () => {
    await expect400(json(eventsPath(), events({ compute_ms: [25, null] }, 'cmp')), 'compute_ms[0]', /larger than the request's latency_ms \(20 ms\)/);
    const c = columns();
    c.queue_ms[3] = 200;
    await expect400(arrow(encodeArrowColumns(c), 'batch_id=q-arrow&agent_id=probe'), 'queue_ms[3]', /larger than the request's latency_ms/);
  });

  it('invalid UTF-8 bytes in agent_id: in a JSON body, and as %FF%FE in the Arrow query string', async () => {
    // The two bytes 0xFF 0xFE inside the agent_id string of an otherwise good JSON body.
    const [head, tail] = events({ agent_id: 'AGENT' }, 'utf8').split('AGENT') as [string, string];
    const raw = Buffer.concat([Buffer.from(`${head}agent-`), Buffer.from([0xff, 0xfe]), Buffer.from(tail)]);
    await expect400(json(eventsPath(), raw), 'agent_id', /U\+FFFD.*not valid UTF-8/);
    await expect400(arrow(encodeArrowColumns(columns()), 'batch_id=utf8-arrow&agent_id=%FF%FE'), 'querystring.agent_id', /not valid UTF-8/);
    await expect400(arrow(encodeArrowColumns(columns()), 'batch_id=%C3%28&agent_id=probe'), 'querystring.batch_id', /not valid UTF-8/);
  });

  it('a step starting ten years ago, which made the run accept events from 2016', async () => {
    const tenYearsAgo = NOW - 10 * 365 * 86_400_000;
    await expect400(
      json(`/api/v1/runs/${runId}/steps`, JSON.stringify({ level: 3, started_at: tenYearsAgo, measure_from: tenYearsAgo, ended_at: tenYearsAgo + 60_000 })),
      'started_at',
      /a run's steps span at most 7 days/,
    );
    const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    expect(detail.steps.map((s) => s.level)).toEqual([LEVEL]);
    // And an event from then is still outside the run's span.
    await expect400(json(eventsPath(), JSON.stringify(batchOf([{ level: LEVEL, ts: tenYearsAgo + 1_000, latency: 5 }], 'old'))), 'ts_ms[0]', /run's time span/);
  });

  it('a service named only a zero-width space, and every other name that shows nothing', async () => {
    const runs = (await listRuns(api.db, { limit: 500 })).length;
    await expect400(json('/api/v1/runs', JSON.stringify({ service: '\u200b', release: 'v1' })), 'service', /no visible character/);
    await expect400(json('/api/v1/runs', JSON.stringify({ service: 's', release: '\u2060\ufeff' })), 'release', /no visible character/);
    await expect400(json('/api/v1/runs', JSON.stringify({ service: 's', release: 'v1', name: '\u3164' })), 'name', /no visible character/);
    await expect400(json('/api/v1/runs', JSON.stringify({ service: 's', release: 'v1', tags: { env: '\u200b\u200c' } })), 'tags.env', /no visible character/);
    expect((await listRuns(api.db, { limit: 500 })).length).toBe(runs);
    await expect400(json(`/api/v1/runs/${runId}`, JSON.stringify({ labels: ['\u00ad'] }), 'PATCH'), 'labels[0]', /no visible character/);
    await expect400(json(eventsPath(), events({ agent_id: '\u200b' }, 'zw')), 'agent_id', /no visible character/);
  });
});
