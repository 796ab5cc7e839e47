import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApi, type FixtureApi } from './fixture-api.ts';
import { startNextApp, type NextApp } from './next-app.ts';

/**
 * The browser reaches the API through the web app's own origin. `next start` gzips proxied
 * responses, and gzip would hold an event stream back until it ends: check that snapshots arrive
 * one by one even when the client accepts gzip and the API does not send `no-transform`.
 */
let api: FixtureApi;
let web: NextApp;

beforeAll(async () => {
  api = await startFixtureApi({ liveStepMs: 400 });
  web = await startNextApp({ apiUrl: api.url });
});

afterAll(async () => {
  await web?.close();
  await api?.close();
});

describe('same-origin API proxy', () => {
  it('streams live snapshots through Next unbuffered and uncompressed', async () => {
    api.restartLive();
    const t0 = Date.now();
    const res = await fetch(`${web.url}/api/v1/runs/${api.liveRunId}/live`, {
      headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip, deflate, br' },
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('content-encoding')).toBeNull();

    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const arrivals: number[] = [];
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      const snapshots = chunk.split('event: snapshot').length - 1;
      for (let i = 0; i < snapshots; i++) arrivals.push(Date.now() - t0);
      text += chunk;
    }
    const end = Date.now() - t0;
    expect(text).toContain('event: end');
    // Snapshots spread over the run's ~5 s, not delivered in one burst at the end.
    expect(arrivals.length).toBeGreaterThanOrEqual(5);
    expect(arrivals[0]!).toBeLessThan(end - 2000);
    expect(new Set(arrivals.map((t) => Math.round(t / 200))).size).toBeGreaterThanOrEqual(5);
  });

  it('forwards JSON requests with their query, and still compresses them', async () => {
    const res = await fetch(`${web.url}/api/v1/runs?service=checkout-api&limit=5`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { runs: Array<{ service: string }> };
    expect(body.runs.length).toBe(2);
    expect(body.runs.every((r) => r.service === 'checkout-api')).toBe(true);

    // Larger than the compression threshold (1 kB): gzip still applies outside the event stream.
    const all = await fetch(`${web.url}/api/v1/runs`, { headers: { 'accept-encoding': 'gzip' } });
    expect(((await all.json()) as { runs: unknown[] }).runs.length).toBe(6);
    expect(all.headers.get('content-encoding')).toBe('gzip');

    const missing = await fetch(`${web.url}/api/v1/runs/00000000-0000-4000-8000-00000000ffff`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { statusCode: number }).statusCode).toBe(404);
  });
});
