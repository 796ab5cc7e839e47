import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRequests } from '@kneeboard/clickhouse';
import { sweepRetention, type RetentionPolicy } from '../src/plugins/retention.ts';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { randomBatch, stepAt } from './ingest-support.ts';

const DAY = 86_400_000;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

async function finishedRun(service: string, labels: string[] = []): Promise<string> {
  const id = await createRun(api.url, { service });
  expect((await postJson(`${api.url}/api/v1/runs/${id}/steps`, stepAt(1))).status).toBe(200);
  expect((await postJson(`${api.url}/api/v1/runs/${id}/events`, randomBatch(`b-${id}`, 200, 1))).status).toBe(200);
  expect((await postJson(`${api.url}/api/v1/runs/${id}/finish`, {})).status).toBe(200);
  if (labels.length > 0) {
    const res = await fetch(`${api.url}/api/v1/runs/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ labels }) });
    expect(res.status).toBe(200);
  }
  return id;
}

const exists = async (id: string) => (await fetch(`${api.url}/api/v1/runs/${id}`)).status;

describe('retention', () => {
  it('deletes runs past their service\'s retention with their events, and keeps pinned runs and services kept longer', async () => {
    const old = await finishedRun('ret-default');
    const pinned = await finishedRun('ret-default', ['baseline', 'pinned']);
    const forever = await finishedRun('ret-forever');
    const longer = await finishedRun('ret-long');
    const shorter = await finishedRun('ret-short');
    const policy: RetentionPolicy = {
      defaultDays: 90,
      services: [
        { service: 'ret-forever', days: null },
        { service: 'ret-long', days: 200 },
        { service: 'ret-short', days: 7 },
      ],
      sweepEveryMs: 3_600_000,
    };

    // Today nothing has expired.
    expect(await sweepRetention(api.db, policy, Date.now())).toEqual([]);
    // Eight days on, only the 7-day service's run.
    expect(await sweepRetention(api.db, policy, Date.now() + 8 * DAY)).toEqual([shorter]);
    // Ninety-one days on, the default's unpinned run too.
    const forgotten: string[] = [];
    expect(await sweepRetention(api.db, policy, Date.now() + 91 * DAY, (id) => forgotten.push(id))).toEqual([old]);
    expect(forgotten).toEqual([old]);

    expect(await exists(old)).toBe(404);
    expect(await exists(shorter)).toBe(404);
    expect(await countRequests(api.db, old)).toBe(0);
    for (const kept of [pinned, forever, longer]) {
      expect(await exists(kept)).toBe(200);
      expect(await countRequests(api.db, kept)).toBe(200);
    }
    // A run whose retention is "forever" everywhere is never even looked for.
    expect(await sweepRetention(api.db, { defaultDays: null, services: [], sweepEveryMs: 1000 }, Date.now() + 10_000 * DAY)).toEqual([]);
  }, 60_000);

  it('counts an imported run\'s age from when it was stored here, not from its file\'s older times', async () => {
    const id = await createRun(api.url, { service: 'ret-imported' });
    expect((await postJson(`${api.url}/api/v1/runs/${id}/steps`, stepAt(1))).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${id}/events`, randomBatch(`b-${id}`, 200, 1))).status).toBe(200);
    // The import finishes its run with the test's own span: a file recorded 100 days ago.
    const startedAt = Date.now() - 100 * DAY;
    const finish = await postJson(`${api.url}/api/v1/runs/${id}/finish`, { status: 'finished', started_at: startedAt, finished_at: startedAt + 60_000 });
    expect(finish.status).toBe(200);
    const policy: RetentionPolicy = { defaultDays: 90, services: [], sweepEveryMs: 3_600_000 };
    expect(await sweepRetention(api.db, policy, Date.now())).not.toContain(id);
    expect(await exists(id)).toBe(200);
    expect(await sweepRetention(api.db, policy, Date.now() + 91 * DAY)).toContain(id);
    expect(await exists(id)).toBe(404);
  }, 60_000);
});
