import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedToken } from '@kneeboard/contracts';
import { batchOf, startTestApi, type TestApi } from './helpers.ts';
import { parseAnswer, rawRequest } from './raw-http.ts';

/**
 * The same probe on a server that requires tokens: 17 connections announcing 16 MiB. Without a
 * valid token they must hold nothing (the token is checked before any byte is counted); with one,
 * a client holds at most its own share (KNEEBOARD_BODY_BUDGET_PER_CLIENT_BYTES), and another
 * client's batches still go in.
 */
const ADMIN = 'test-admin-token-0123456789abcdef';
const SIXTEEN_MIB = 16 * 1024 * 1024;
const PER_CLIENT = 256 * 1024;
const T0 = Date.now() - 60_000;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({
    access: { mode: 'required', read: 'public', adminToken: ADMIN },
    limits: { bodyBudgetBytes: 4 * 1024 * 1024, bodyBudgetPerClientBytes: PER_CLIENT, bodyStartTimeoutMs: 1500, requestTimeoutMs: 3000, rateMax: 0 },
  });
});
afterAll(async () => api.close());

const inFlight = async () => ((await (await fetch(`${api.url}/readyz`)).json()) as { load: { body_bytes_in_flight: number } }).load.body_bytes_in_flight;

async function mint(scope: 'ingest' | 'write'): Promise<string> {
  const res = await fetch(`${api.url}/api/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: scope, scope }) });
  return CreatedToken.parse(await res.json()).token;
}

async function newRun(token: string): Promise<string> {
  const res = await fetch(`${api.url}/api/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ service: 's', release: 'r' }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

function serverSaw(n: number, path: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onRequest = (req: IncomingMessage) => {
      if (req.url === path && ++seen === n) {
        api.app.server.off('request', onRequest);
        resolve();
      }
    };
    api.app.server.on('request', onRequest);
  });
}

describe('the body budget on a server that requires tokens', () => {
  it('holds nothing for 17 connections without a valid token: each is a 401 at once, before any body', async () => {
    const run = await newRun(await mint('ingest'));
    const path = `/api/v1/runs/${run}/events`;
    const attackers = Array.from({ length: 17 }, (_, i) =>
      rawRequest(api.url, `POST ${path}`, { 'content-type': 'application/json', 'content-length': SIXTEEN_MIB, ...(i % 2 === 0 ? {} : { authorization: 'Bearer kb_nothing_like_a_real_token' }) }),
    );
    for (const a of attackers) {
      // Answered and closed at once: the announced body is never waited for.
      const raw = await a.answer;
      const { status, body } = parseAnswer(raw);
      expect(raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
      expect(raw).toMatch(/\r\nconnection: close\r\n/i);
      expect(status).toBe(401);
      expect(body?.field).toBe('authorization');
    }
    expect(await inFlight()).toBe(0);
  }, 20_000);

  it('lets one token hold at most its share (429 naming KNEEBOARD_BODY_BUDGET_PER_CLIENT_BYTES); another token is served meanwhile', async () => {
    const greedy = await mint('ingest');
    const honest = await mint('ingest');
    const greedyRun = await newRun(greedy);
    const honestRun = await newRun(honest);
    const path = `/api/v1/runs/${greedyRun}/events`;
    const seen = serverSaw(1, path);
    // Most of its share arrives, then nothing.
    const sent = `{"batch_id":"${'x'.repeat(200_000 - 14)}`;
    const held = rawRequest(api.url, `POST ${path}`, { 'content-type': 'application/json', 'content-length': SIXTEEN_MIB, authorization: `Bearer ${greedy}` }, sent);
    await seen;
    for (let i = 0; i < 200 && (await inFlight()) < sent.length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await inFlight()).toBe(sent.length);

    const more = await fetch(`${api.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${greedy}`, 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(100_000) }) });
    expect(more.status).toBe(429);
    expect(more.headers.get('retry-after')).toBe('1');
    expect(((await more.json()) as { message: string }).message).toContain('KNEEBOARD_BODY_BUDGET_PER_CLIENT_BYTES');

    const batch = batchOf(
      Array.from({ length: 2000 }, (_, k) => ({ level: 1, ts: T0 + k, latency: 3 })),
      'honest-1',
    );
    const ok = await fetch(`${api.url}/api/v1/runs/${honestRun}/events`, { method: 'POST', headers: { authorization: `Bearer ${honest}`, 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    expect(ok.status).toBe(200);

    // Cut by the request timeout (it did start, so not by the start deadline); its bytes come back.
    expect(parseAnswer(await held.answer).status).toBe(408);
    for (let i = 0; i < 200 && (await inFlight()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await inFlight()).toBe(0);
  }, 30_000);
});
