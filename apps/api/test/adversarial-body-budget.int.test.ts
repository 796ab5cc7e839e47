import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests } from '@kneeboard/clickhouse';
import { batchOf, createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { parseAnswer, rawRequest, type RawRequest } from './raw-http.ts';

/**
 * The probe: 17 connections send `POST …/events` headers announcing 16 MiB and no body. Counted
 * from Content-Length they took the whole 256 MiB budget and every write answered 429 until the
 * request timeout. Here the default budget and body limit, an open server (no rate limit), and a
 * start deadline short enough for a test.
 */
const SIXTEEN_MIB = 16 * 1024 * 1024;
const ATTACKERS = 17;
const START_TIMEOUT_MS = 1500;
const T0 = Date.now() - 60_000;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ limits: { bodyStartTimeoutMs: START_TIMEOUT_MS, requestTimeoutMs: 30_000 } });
});
afterAll(async () => api.close());

const inFlight = async () => ((await (await fetch(`${api.url}/readyz`)).json()) as { load: { body_bytes_in_flight: number } }).load.body_bytes_in_flight;

/** Resolves once the server has read the headers of `n` requests to this path (they reach its handler chain). */
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

const honestBatch = (i: number) =>
  batchOf(
    Array.from({ length: 1000 }, (_, k) => ({ level: 1, ts: T0 + 1000 + k, latency: 5 + (k % 7) })),
    `honest-${i}`,
  );

describe('a body budget counted as bytes arrive (17 connections announcing 16 MiB, sending nothing)', () => {
  it('holds nothing for them, keeps accepting honest writes meanwhile, and cuts them at the start deadline', async () => {
    const victim = await createRun(api.url);
    const path = `/api/v1/runs/${victim}/events`;
    const seen = serverSaw(ATTACKERS, path);
    const stalled: RawRequest[] = Array.from({ length: ATTACKERS }, () => rawRequest(api.url, `POST ${path}`, { 'content-type': 'application/json', 'content-length': SIXTEEN_MIB }));
    await seen;

    // Announced is not received: nothing is held for them.
    expect(await inFlight()).toBe(0);

    // An honest agent and a person creating a run are served while the 17 are connected.
    const honest = await createRun(api.url, { service: 'honest' });
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push((await postJson(`${api.url}/api/v1/runs/${honest}/events`, honestBatch(i))).status);
    const small = await postJson(`${api.url}/api/v1/runs`, { service: 's', release: 'r' });
    expect(answers).toEqual([200, 200, 200, 200, 200]);
    expect(small.status).toBe(201);
    expect(await countRequests(api.db, honest)).toBe(5000);

    // Each stalled body is cut by the start deadline (our 408 naming it, not Node's bare request timeout), connection closed.
    for (const s of stalled) {
      const { status, body } = parseAnswer(await s.answer);
      expect(status).toBe(408);
      expect(body?.message).toContain('KNEEBOARD_BODY_START_TIMEOUT_S');
      expect(s.socket.destroyed || s.socket.readableEnded).toBe(true);
    }
    expect(await countRequests(api.db, victim)).toBe(0);
    expect(await inFlight()).toBe(0);
  }, 30_000);

  it('counts a body that started by what arrived, and gives it back when the request ends', async () => {
    const run = await createRun(api.url);
    const path = `/api/v1/runs/${run}/events`;
    const seen = serverSaw(1, path);
    const sent = '{"batch_id":"slow","pad":"' + 'x'.repeat(59_974);
    const slow = rawRequest(api.url, `POST ${path}`, { 'content-type': 'application/json', 'content-length': SIXTEEN_MIB }, sent);
    await seen;
    for (let i = 0; i < 200 && (await inFlight()) < sent.length; i++) await new Promise((r) => setTimeout(r, 20));
    // Exactly the bytes that arrived — not 16 MiB, and it was not cut by the start deadline.
    expect(await inFlight()).toBe(sent.length);
    await new Promise((r) => setTimeout(r, START_TIMEOUT_MS + 500));
    expect(slow.socket.destroyed).toBe(false);
    expect(await inFlight()).toBe(sent.length);
    slow.socket.destroy();
    await slow.answer;
    for (let i = 0; i < 200 && (await inFlight()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await inFlight()).toBe(0);
  }, 30_000);
});
