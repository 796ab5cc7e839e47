import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests, listRuns } from '@kneeboard/clickhouse';
import { ApiError, Run, RunDetail } from '@kneeboard/contracts';
import { createRun, startTestApi, type TestApi } from './helpers.ts';

let api: TestApi;
let runId: string;
beforeAll(async () => {
  api = await startTestApi();
  runId = await createRun(api.url);
});
afterAll(async () => api.close());

/** Sends a JSON text as is: JSON.stringify would keep a lone surrogate as \ud800, which is exactly the case. */
const send = (method: string, path: string, json: string) => fetch(`${api.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: json });

async function expect400(res: Response, field: string, message: RegExp) {
  expect(res.status).toBe(400);
  const err = ApiError.parse(await res.json());
  expect(err.field).toBe(field);
  expect(err.message).toMatch(message);
}

const runCount = async () => (await listRuns(api.db, { limit: 500 })).length;

describe('user strings: valid Unicode, no control characters, no bidirectional overrides', () => {
  it('refuses a lone surrogate in create-run (was a 500) and in a note (400 naming the field, nothing written)', async () => {
    const before = await runCount();
    await expect400(await send('POST', '/api/v1/runs', '{"service":"x\\ud800","release":"v1"}'), 'service', /lone UTF-16 surrogate \(U\+D800\)/);
    await expect400(await send('POST', '/api/v1/runs', '{"service":"x","release":"\\udc00v1"}'), 'release', /surrogate/);
    expect(await runCount()).toBe(before);
    await expect400(await send('PATCH', `/api/v1/runs/${runId}`, '{"note":"fine \\ud83d then lone"}'), 'note', /surrogate/);
    const { run } = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}`)).json());
    expect(run.note).toBe('');
  });

  it('keeps a valid surrogate pair (an emoji) as it is', async () => {
    const res = await send('POST', '/api/v1/runs', '{"service":"rocket \\ud83d\\ude80","release":"v1"}');
    expect(res.status).toBe(201);
  });

  it('refuses NUL, escape sequences and line breaks in names, and right-to-left overrides', async () => {
    const before = await runCount();
    const cases: Array<[string, string, RegExp]> = [
      ['{"service":"a\\u0000b","release":"v1"}', 'service', /U\+0000/],
      ['{"service":"a","release":"v1","name":"\\u202eexe.txt"}', 'name', /bidirectional override U\+202E/],
      ['{"service":"a","release":"v1\\u001b[31m"}', 'release', /U\+001B/],
      ['{"service":"a","release":"v1","parameter":"two\\nlines"}', 'parameter', /U\+000A/],
      ['{"service":"a","release":"v1","tags":{"k":"\\u2066x"}}', 'tags.k', /U\+2066/],
      ['{"service":"a","release":"v1","agent_host":"h\\u0085"}', 'agent_host', /U\+0085/],
    ];
    for (const [json, field, message] of cases) await expect400(await send('POST', '/api/v1/runs', json), field, message);
    expect(await runCount()).toBe(before);
    await expect400(await send('PATCH', `/api/v1/runs/${runId}`, '{"labels":["ok","bad\\u202d"]}'), 'labels[1]', /U\+202D/);
  });

  it('lets a note break lines and tab, but not carry other controls', async () => {
    const ok = await send('PATCH', `/api/v1/runs/${runId}`, '{"note":"line one\\n\\tline two\\r\\n"}');
    expect(ok.status).toBe(200);
    expect(Run.parse(await ok.json()).note).toBe('line one\n\tline two\r\n');
    await expect400(await send('PATCH', `/api/v1/runs/${runId}`, '{"note":"bell\\u0007"}'), 'note', /U\+0007/);
  });

  it('refuses a poisoned batch or agent id in an event batch', async () => {
    const batch = '{"batch_id":"b\\ud800","agent_id":"a","level":[],"ts_ms":[],"latency_ms":[],"compute_ms":[],"queue_ms":[],"status":[]}';
    await expect400(await send('POST', `/api/v1/runs/${runId}/events`, batch), 'batch_id', /surrogate/);
    await expect400(await send('POST', `/api/v1/runs/${runId}/events`, batch.replace('b\\ud800', 'b').replace('"a"', '"a\\u0000"')), 'agent_id', /U\+0000/);
    expect(await countRequests(api.db, runId)).toBe(0);
  });

  it('answers reads filtered by a poisoned string with a 400, never a 500', async () => {
    for (const path of ['/api/v1/runs?service=%00x', `/api/v1/services/${encodeURIComponent('a\u202eb')}/releases`]) {
      const res = await fetch(`${api.url}${path}`);
      expect(res.status).toBe(400);
    }
    // Invalid UTF-8 in a query string is decoded by the server, not passed to storage raw.
    expect((await fetch(`${api.url}/api/v1/runs?service=%ED%A0%80`)).status).toBeLessThan(500);
  });
});
