import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@kneeboard/contracts';
import { createRun, startTestApi, type TestApi } from './helpers.ts';
import { openStream, type OpenStream } from './sse.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ limits: { livePerClient: 3, liveTotal: 4 } });
});
afterAll(async () => api.close());

const liveStreams = async () => ((await (await fetch(`${api.url}/readyz`)).json()) as { load: { live_streams: number } }).load.live_streams;

describe('live stream caps', () => {
  it('refuses a client past KNEEBOARD_LIVE_PER_CLIENT and everyone past KNEEBOARD_LIVE_TOTAL with 429, and frees slots on close', async () => {
    const runs = await Promise.all([1, 2, 3, 4, 5].map(() => createRun(api.url)));
    const open: OpenStream[] = [];
    for (const run of runs.slice(0, 3)) open.push(await openStream(`${api.url}/api/v1/runs/${run}/live`));
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);

    const fourth = await openStream(`${api.url}/api/v1/runs/${runs[3]}/live`);
    expect(fourth.status).toBe(429);
    expect(Number(fourth.retryAfter)).toBeGreaterThan(0);
    expect(ApiError.parse(JSON.parse(fourth.body)).message).toContain('at most 3 (KNEEBOARD_LIVE_PER_CLIENT)');

    // Another client (another loopback address) gets the last slot in all, then the total is reached.
    const other = await openStream(`${api.url}/api/v1/runs/${runs[3]}/live`, '127.0.0.2');
    expect(other.status).toBe(200);
    open.push(other);
    const over = await openStream(`${api.url}/api/v1/runs/${runs[4]}/live`, '127.0.0.3');
    expect(over.status).toBe(429);
    expect(ApiError.parse(JSON.parse(over.body)).message).toContain('at most 4 in all (KNEEBOARD_LIVE_TOTAL)');
    expect(await liveStreams()).toBe(4);

    // Closing streams gives their slots back.
    for (const s of open) s.close();
    for (let i = 0; i < 100 && (await liveStreams()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await liveStreams()).toBe(0);
    const again = await openStream(`${api.url}/api/v1/runs/${runs[4]}/live`);
    expect(again.status).toBe(200);
    again.close();
  });

  it('a finished run\'s stream ends at once and does not keep its slot', async () => {
    const run = await createRun(api.url);
    await fetch(`${api.url}/api/v1/runs/${run}/finish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${api.url}/api/v1/runs/${run}/live`);
      expect(res.status).toBe(200);
      await res.text();
    }
    for (let i = 0; i < 100 && (await liveStreams()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await liveStreams()).toBe(0);
  });
});
