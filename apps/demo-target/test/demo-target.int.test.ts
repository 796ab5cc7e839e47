import { afterEach, describe, expect, it } from 'vitest';
import { startDemoTarget, type DemoTarget } from '../src/index.ts';
import { parseDemoTiming, timedGet, waitFor } from './http-get.ts';

let target: DemoTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe('demo target on 127.0.0.1', () => {
  it('answers /healthz without taking a slot', async () => {
    target = await startDemoTarget({ workers: 1, serviceMs: 200, port: 0 });
    const res = await timedGet(`${target.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.latencyMs).toBeLessThan(100);
    expect(target.stats().served).toBe(0);
  });

  it('sends a parseable Server-Timing with the measured compute time', async () => {
    target = await startDemoTarget({ workers: 1, serviceMs: 20, port: 0 });
    const res = await timedGet(`${target.url}/anything?x=1`);
    expect(res.status).toBe(200);
    const timing = parseDemoTiming(res.serverTiming);
    expect(timing.queue).toBeLessThan(2);
    // setTimeout is only accurate to about a millisecond; the header reports what was achieved.
    expect(timing.compute).toBeGreaterThan(18);
    expect(timing.compute).toBeLessThan(30);
    expect(JSON.parse(res.body)).toEqual({ queue_ms: expect.any(Number), compute_ms: expect.any(Number) });
    expect(res.latencyMs).toBeGreaterThanOrEqual(timing.compute);
  });

  it('with W=2, S=20 and 4 concurrent requests: two take ~20 ms, two ~40 ms after ~20 ms of queue', async () => {
    target = await startDemoTarget({ workers: 2, serviceMs: 20, port: 0 });
    const url = target.url;
    const results = await Promise.all([1, 2, 3, 4].map(() => timedGet(url)));
    const sorted = results.map((r) => ({ ...r, timing: parseDemoTiming(r.serverTiming) })).sort((a, b) => a.latencyMs - b.latencyMs);
    const [a, b, c, d] = sorted as [(typeof sorted)[0], (typeof sorted)[0], (typeof sorted)[0], (typeof sorted)[0]];
    for (const fast of [a, b]) {
      expect(fast.latencyMs).toBeGreaterThan(18);
      expect(fast.latencyMs).toBeLessThan(32);
      expect(fast.timing.queue).toBeLessThan(5);
    }
    for (const slow of [c, d]) {
      expect(slow.latencyMs).toBeGreaterThan(38);
      expect(slow.latencyMs).toBeLessThan(55);
      expect(slow.timing.queue).toBeGreaterThan(16);
      expect(slow.timing.queue).toBeLessThan(28);
    }
    expect(target.stats().maxInFlight).toBe(4);
  });

  it('serves queued requests in arrival order (FIFO)', async () => {
    target = await startDemoTarget({ workers: 1, serviceMs: 15, port: 0 });
    const t = target;
    const pending = [];
    // Send one at a time and wait until the server has it, so the arrival order is known.
    for (let i = 0; i < 6; i++) {
      pending.push(timedGet(`${t.url}/?i=${i}`));
      await waitFor(() => t.stats().inFlight + t.stats().served === i + 1);
    }
    const results = await Promise.all(pending);
    const doneOrder = results.map((r, i) => ({ i, doneAt: r.doneAt })).sort((x, y) => x.doneAt - y.doneAt).map((x) => x.i);
    expect(doneOrder).toEqual([0, 1, 2, 3, 4, 5]);
    const queues = results.map((r) => parseDemoTiming(r.serverTiming).queue);
    for (let i = 1; i < queues.length; i++) expect(queues[i]).toBeGreaterThan(queues[i - 1]!);
  });

  it('counts in-flight requests and restarts the maximum on resetStats()', async () => {
    target = await startDemoTarget({ workers: 2, serviceMs: 5, port: 0 });
    const url = target.url;
    await Promise.all([1, 2, 3].map(() => timedGet(url)));
    expect(target.stats()).toEqual({ inFlight: 0, maxInFlight: 3, queued: 0, served: 3 });
    target.resetStats();
    await timedGet(url);
    expect(target.stats()).toEqual({ inFlight: 0, maxInFlight: 1, queued: 0, served: 1 });
    const stats = JSON.parse((await timedGet(`${url}/stats`)).body);
    expect(stats.maxInFlight).toBe(1);
  });

  it('drops a queued request whose client hung up, so it takes no slot', async () => {
    target = await startDemoTarget({ workers: 1, serviceMs: 30, port: 0 });
    const t = target;
    const first = timedGet(t.url);
    await waitFor(() => t.stats().inFlight === 1);
    const controller = new AbortController();
    const abandoned = fetch(t.url, { signal: controller.signal }).catch((err: Error) => err.name);
    await waitFor(() => t.stats().queued === 1);
    controller.abort();
    expect(await abandoned).toBe('AbortError');
    await waitFor(() => t.stats().queued === 0);
    await first;
    await waitFor(() => t.stats().inFlight === 0);
    expect(t.stats().served).toBe(1);
  });
});
