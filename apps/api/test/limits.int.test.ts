import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@kneeboard/contracts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';

/** Small limits, so a few requests reach each. */
const LIMITS = { bodyBytes: 4096, eventsBodyBytes: 64 * 1024, bodyBudgetBytes: 100 * 1024, requestTimeoutMs: 1000, rateMax: 1000 };

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ limits: LIMITS });
});
afterAll(async () => api.close());

async function send(url: string, body: string, type = 'application/json'): Promise<{ status: number; body: ApiError; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
  return { status: res.status, body: ApiError.parse(await res.json()), headers: res.headers };
}

/** Headers and part of a body, then silence: answers what the server sent before it closed the socket. */
function slowBody(url: string, declared: number, sent: string, path = '/api/v1/runs'): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${sent}`);
  });
}

describe('body limits', () => {
  it('a JSON body over KNEEBOARD_BODY_LIMIT_BYTES is a 413 naming the limit, and creates nothing', async () => {
    const before = (await (await fetch(`${api.url}/api/v1/runs`)).json()) as { runs: unknown[] };
    const res = await send(`${api.url}/api/v1/runs`, JSON.stringify({ service: 's', release: 'r', unknown_field: 'x'.repeat(10_000) }));
    expect(res.status).toBe(413);
    expect(res.body.message).toContain('4096 bytes');
    expect(res.body.message).toContain('KNEEBOARD_BODY_LIMIT_BYTES');
    expect(res.body.field).toBe('body');
    const after = (await (await fetch(`${api.url}/api/v1/runs`)).json()) as { runs: unknown[] };
    expect(after.runs.length).toBe(before.runs.length);
  });

  it('an event batch has its own, larger limit (KNEEBOARD_EVENTS_BODY_LIMIT_BYTES), JSON and Arrow alike', async () => {
    const runId = await createRun(api.url);
    const url = `${api.url}/api/v1/runs/${runId}/events`;
    // Over the general limit but under the events limit: reaches the batch checks (a 400 for the unknown run shape, not a 413).
    const medium = await send(url, JSON.stringify({ batch_id: 'b', agent_id: 'a', level: [], ts_ms: [], latency_ms: [], compute_ms: [], queue_ms: [], status: [], pad: 'x'.repeat(8000) }));
    expect(medium.status).not.toBe(413);
    const big = await send(url, JSON.stringify({ pad: 'x'.repeat(70 * 1024) }));
    expect(big.status).toBe(413);
    expect(big.body.message).toContain('KNEEBOARD_EVENTS_BODY_LIMIT_BYTES');
    const arrow = await send(`${url}?batch_id=b&agent_id=a`, 'x'.repeat(70 * 1024), 'application/vnd.apache.arrow.stream');
    expect(arrow.status).toBe(413);
    expect(arrow.body.message).toContain(`${64 * 1024} bytes`);
  });
});

describe('field limits', () => {
  it('more than 50 tags, or a tag value past 500 characters, is a 400 naming the field and the limit', async () => {
    const tags = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    const many = await send(`${api.url}/api/v1/runs`, JSON.stringify({ service: 's', release: 'r', tags }));
    expect(many.status).toBe(400);
    expect(many.body.field).toBe('tags');
    expect(many.body.message).toContain('at most 50 tags');
    const long = await send(`${api.url}/api/v1/runs`, JSON.stringify({ service: 's', release: 'r', tags: { k: 'v'.repeat(501) } }));
    expect(long.status).toBe(400);
    expect(long.body.field).toBe('tags.k');
  });
});

describe('bodies in flight', () => {
  it('past KNEEBOARD_BODY_BUDGET_BYTES of bodies received at once, another is a 429 as its bytes arrive; the budget comes back when a slow body is cut', async () => {
    const runId = await createRun(api.url);
    const path = `/api/v1/runs/${runId}/events`;
    // 60 KB of a 64 KB body arrive, then nothing: they hold 60 KB of the 100 KB budget until the request timeout cuts them.
    const sent = `{"batch_id":"${'x'.repeat(60_000 - 14)}`;
    const held = slowBody(api.url, 64_000, sent, path);
    const inFlight = async () => ((await (await fetch(`${api.url}/readyz`)).json()) as { load: { body_bytes_in_flight: number } }).load.body_bytes_in_flight;
    for (let i = 0; i < 100 && (await inFlight()) < sent.length; i++) await new Promise((r) => setTimeout(r, 20));
    // What arrived, not what Content-Length announced.
    expect(await inFlight()).toBe(sent.length);
    const refused = await send(`${api.url}${path}`, JSON.stringify({ pad: 'x'.repeat(50_000) }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.message).toContain('KNEEBOARD_BODY_BUDGET_BYTES');
    // A small body still fits beside it.
    expect((await postJson(`${api.url}/api/v1/runs`, { service: 's', release: 'r' })).status).toBe(201);
    expect((await held).startsWith('HTTP/1.1 408')).toBe(true);
    for (let i = 0; i < 100 && (await inFlight()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await inFlight()).toBe(0);
    // Released: the same 50 KB body is now read (and refused for what it is, not for the budget).
    const after = await send(`${api.url}${path}`, JSON.stringify({ pad: 'x'.repeat(50_000) }));
    expect(after.status).toBe(400);
  }, 20_000);
});

describe('request timeout', () => {
  it('a body that stops arriving is cut with a 408 and the connection closed (KNEEBOARD_REQUEST_TIMEOUT_S)', async () => {
    const answer = await slowBody(api.url, 1000, '{"service":');
    expect(answer.startsWith('HTTP/1.1 408')).toBe(true);
    // The server is still fine for everyone else.
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
  }, 20_000);
});
