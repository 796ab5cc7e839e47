import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServerTiming } from '@kneeboard/agent-sdk';
import { markHandlerStart, serverTiming, serverTimingMiddleware } from '../src/index.ts';

/**
 * One slot: the second of two concurrent requests waits for the first — a real queue inside the
 * app. The first works only once the other is waiting: on a busy box two requests may arrive far
 * apart, and the test is about the wait, not the arrival.
 */
function limiter() {
  let busy = Promise.resolve();
  let arrived = 0;
  /** `acquired` runs the moment the slot is this request's: where the app marks its handler start. */
  return async <T>(work: () => Promise<T>, acquired: () => void): Promise<T> => {
    arrived += 1;
    const before = busy;
    let release!: () => void;
    busy = new Promise<void>((r) => (release = r));
    await before;
    try {
      acquired();
      for (let i = 0; i < 5_000 && arrived < 2; i++) await sleep(1);
      return await work();
    } finally {
      release();
    }
  };
}

const WORK_MS = 60;
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function timings(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  return { status: res.status, header: res.headers.get('server-timing'), ...parseServerTiming(res.headers.get('server-timing') ?? undefined) };
}

describe.each([
  [
    'fastify',
    async () => {
      const app = Fastify();
      await app.register(serverTiming);
      const slot = limiter();
      app.get('/', async (_req, reply) =>
        slot(async () => {
          await sleep(WORK_MS);
          return { ok: true };
        }, () => markHandlerStart(reply.raw)),
      );
      app.get('/plain', async () => 'plain');
      await app.listen({ port: 0, host: '127.0.0.1' });
      closers.push(() => app.close());
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    },
  ],
  [
    'express',
    async () => {
      const app = express();
      app.use(serverTimingMiddleware());
      const slot = limiter();
      app.get('/', (_req, res) => {
        void slot(
          async () => {
            await sleep(WORK_MS);
            res.json({ ok: true });
          },
          () => markHandlerStart(res),
        );
      });
      app.get('/plain', (_req, res) => {
        res.setHeader('server-timing', 'db;dur=1');
        res.send('plain');
      });
      const server: Server = await new Promise((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      closers.push(() => new Promise((r) => server.close(r)));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  ],
])('%s', (_name, start) => {
  it('splits queue (waiting for the app’s one slot) from compute (the work) in Server-Timing', async () => {
    const base = await start();
    const [a, b] = await Promise.all([timings(`${base}/`), timings(`${base}/`)]);
    for (const t of [a, b]) {
      expect(t.status).toBe(200);
      expect(t.computeMs!).toBeGreaterThanOrEqual(WORK_MS - 1);
    }
    // One of the two waited for the other's whole work.
    const [first, second] = [a, b].sort((x, y) => x.queueMs! - y.queueMs!);
    expect(first!.queueMs!).toBeLessThan(second!.queueMs!);
    expect(second!.queueMs!).toBeGreaterThanOrEqual(WORK_MS - 1);

    // A proxy's stamp 250 ms ago counts as queue: the time spent before the app saw the request.
    const proxied = await timings(`${base}/plain`, { 'x-request-start': `t=${((Date.now() - 250) / 1000).toFixed(3)}` });
    expect(proxied.queueMs!).toBeGreaterThanOrEqual(240);
    expect(proxied.queueMs!).toBeLessThan(5_000);
    // A stamp in the future (a skewed clock) is ignored rather than trusted.
    const skewed = await timings(`${base}/plain`, { 'x-request-start': `t=${(Date.now() + 60_000) / 1000}` });
    expect(skewed.queueMs!).toBeLessThan(240);
  });
});

describe('existing Server-Timing entries', () => {
  it('are kept, ours appended', async () => {
    const app = express();
    app.use(serverTimingMiddleware());
    app.get('/', (_req, res) => {
      res.setHeader('server-timing', 'db;dur=1.5');
      res.send('x');
    });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    closers.push(() => new Promise((r) => server.close(r)));
    const t = await timings(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(t.header).toMatch(/^db;dur=1\.5, queue;dur=[\d.]+, compute;dur=[\d.]+$/);
  });
});
