/**
 * The dashboard reaches the API through Next's proxy, whose client agent (Node's) keeps an idle
 * connection 5 s. An API that closed idle connections at 5 s too raced it: the proxy wrote a
 * request on a socket the API was closing, and the browser got a 500 (seen in CI on the comparison's
 * level panel). The API keeps idle connections well past any client agent's idle time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_MS } from '../src/app.ts';
import { rawRequest } from './raw-http.ts';
import { startTestApi, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

describe('keep-alive', () => {
  it('keeps an idle connection open past the 5 s idle time of Node’s client agent', async () => {
    expect(KEEP_ALIVE_MS).toBeGreaterThan(5_000);
    const req = rawRequest(api.url, 'GET /healthz', { connection: 'keep-alive' });
    let closedAt: number | null = null;
    req.socket.on('close', () => (closedAt = Date.now()));
    const start = Date.now();
    // 6 s of silence after the first answer: longer than Node's default server keep-alive (5 s).
    await new Promise((r) => setTimeout(r, 6_000));
    expect(closedAt, `the API closed the idle connection after ${closedAt === null ? 0 : closedAt - start} ms`).toBeNull();
    // The same connection still serves the next request.
    req.socket.write(`GET /healthz HTTP/1.1\r\nhost: ${new URL(api.url).host}\r\nconnection: close\r\n\r\n`);
    const text = await req.answer;
    expect(text.match(/HTTP\/1\.1 200 /g)?.length, text).toBe(2);
  }, 20_000);
});
