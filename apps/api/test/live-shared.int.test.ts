import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '@kneeboard/clickhouse';
import { LIVE_EVENT, RunDetail } from '@kneeboard/contracts';
import { buildApp, type KneeboardApp } from '../src/app.ts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { randomBatch, stepAt } from './ingest-support.ts';
import { readEvents } from './sse.ts';

/**
 * Two API processes on one ClickHouse server: viewers watch through A, an agent writes through B.
 * A learns of B's writes from one change-mark query per second for all its watched runs, and
 * recomputes a run's curve once per change, for all its viewers — never for idle runs.
 */
let a: TestApi;
let b: { app: KneeboardApp; db: Db; url: string };
beforeAll(async () => {
  a = await startTestApi({ mode: 'server' });
  const db = openDb(a.storage);
  const app = await buildApp({ db });
  b = { app, db, url: await app.listen({ port: 0, host: '127.0.0.1' }) };
}, 120_000);
afterAll(async () => {
  await b?.app.close();
  await b?.db.close();
  await a?.close();
});

interface Load {
  watched_runs: number;
  live_refreshes: number;
  live_polls: number;
}
const load = async () => ((await (await fetch(`${a.url}/readyz`)).json()) as { load: Load }).load;

async function untilPolls(n: number): Promise<Load> {
  for (let i = 0; i < 200; i++) {
    const l = await load();
    if (l.live_polls >= n) return l;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${n} polls`);
}

describe('live updates across API processes', () => {
  it('computes a run once per change for all its viewers, and not at all for idle runs', async () => {
    const runs = await Promise.all([1, 2, 3, 4].map(() => createRun(a.url)));
    for (const run of runs) expect((await postJson(`${a.url}/api/v1/runs/${run}/steps`, stepAt(1))).status).toBe(200);
    const [busy] = runs as [string];
    const stop = new AbortController();
    const viewers = await Promise.all([...Array.from({ length: 5 }, () => busy), ...runs.slice(1)].map((run) => fetch(`${a.url}/api/v1/runs/${run}/live`, { signal: stop.signal })));
    const streams = viewers.map(readEvents);
    for (const s of streams) expect((await s.next()).value?.event).toBe(LIVE_EVENT.snapshot);

    // Idle: polls go on, nothing is recomputed.
    const idle = await load();
    expect(idle.watched_runs).toBe(4);
    const later = await untilPolls(idle.live_polls + 2);
    expect(later.live_refreshes).toBe(idle.live_refreshes);

    // One batch through B: every viewer of that run gets it, from one recompute.
    expect((await postJson(`${b.url}/api/v1/runs/${busy}/events`, randomBatch('from-b', 500, 7))).status).toBe(200);
    for (const s of streams.slice(0, 5)) {
      for (let i = 0; ; i++) {
        expect(i).toBeLessThan(20);
        const next = await s.next();
        if (RunDetail.parse(JSON.parse(next.value?.data ?? '')).curve.some((p) => p.requests > 0)) break;
      }
    }
    const after = await untilPolls((await load()).live_polls + 2);
    expect(after.live_refreshes - idle.live_refreshes).toBe(1);
    stop.abort();
  }, 60_000);
});
