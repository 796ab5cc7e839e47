import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchIdReused, openEventStore, queryExactCurve, queryRollupCurve, SharedInsertFailed, type EventStore, type StoreBatch } from '@kneeboard/clickhouse';
import type { CurvePoint, EventBatch } from '@kneeboard/contracts';
import { encodeArrowColumns } from '@kneeboard/event-wire';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { columnsOf, randomBatch, T0 } from './ingest-support.ts';

/**
 * The embedded store's live figures (store/live-figures.ts): read from storage once, then every
 * stored batch folded in. After a burst — copies of one batch at once and later, a reused id, a
 * group whose insert failed, events outside every window — they must be what storage holds:
 * the rollup curve's counts and percentiles exactly, the exact curve's counts.
 */
let api: TestApi;
let store: EventStore;
beforeAll(async () => {
  api = await startTestApi({ mode: 'embedded' });
  store = openEventStore(api.db);
});
afterAll(async () => api?.close());

function batchFor(runId: string, b: EventBatch, arrow?: Uint8Array): StoreBatch {
  const columns = columnsOf(b);
  return { runId, batchId: b.batch_id, agentId: b.agent_id, columns, arrow: arrow ?? encodeArrowColumns(columns), receivedAt: Date.now() };
}

/** Counts and percentiles compared exactly; the mean to 1e-9 (a float sum in another order). */
function comparable(curve: CurvePoint[]) {
  return curve.map(({ mean_ms, ...rest }) => ({ ...rest, mean_ms: typeof mean_ms === 'number' ? Number(mean_ms.toPrecision(10)) : mean_ms }));
}

describe('live figures kept in memory by the embedded store', () => {
  it('equal the stored figures after a burst with duplicates, a reused id and a refused group', async () => {
    const runId = await createRun(api.url);
    // Level 1 open from T0 + 1 s, level 2 closed at T0 + 2,000.5 s; level 3 has no step (never counted).
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 1, started_at: T0, measure_from: T0 + 1_000 })).status).toBe(200);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 2, started_at: T0, measure_from: T0, ended_at: T0 + 2_000_500 })).status).toBe(200);

    const live = store.live;
    if (!live) throw new Error('the embedded store keeps live figures');
    // Before the first read: some batches already stored (read from storage, not folded).
    for (let i = 0; i < 3; i++) expect(await store.store(batchFor(runId, randomBatch(`pre-${i}`, 400, 100 + i, 1 + (i % 2))))).toBe('stored');
    expect((await live.curve(runId)).map((p) => p.requests)).toEqual((await queryRollupCurve(api.db, runId)).map((p) => p.requests));

    const batches = Array.from({ length: 12 }, (_, i) => randomBatch(`b-${i}`, 300 + i * 37, 200 + i, 1 + (i % 3)));
    const copy = batchFor(runId, batches[0] as EventBatch);
    const outcomes = await Promise.all([...batches.map((b) => store.store(batchFor(runId, b))), store.store(copy), store.store(copy)]);
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(12);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(2);
    // Sent again later: a duplicate; the same id with other events: refused.
    expect(await store.store(copy)).toBe('duplicate');
    await expect(store.store(batchFor(runId, randomBatch('b-0', 50, 999)))).rejects.toBeInstanceOf(BatchIdReused);

    // A group whose insert fails (one body is not Arrow): neither batch is stored, nor counted.
    const good = randomBatch('good', 250, 300);
    const results = await Promise.allSettled([store.store(batchFor(runId, good)), store.store(batchFor(runId, randomBatch('broken', 80, 301), new Uint8Array([1, 2, 3, 4])))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(results.some((r) => r.status === 'rejected' && (r.reason instanceof SharedInsertFailed || r.reason instanceof Error))).toBe(true);
    // Sent again on its own: stored once, counted once.
    expect(await store.store(batchFor(runId, good))).toBe('stored');

    const fromMemory = await live.curve(runId);
    const rollup = await queryRollupCurve(api.db, runId);
    expect(comparable(fromMemory)).toEqual(comparable(rollup));
    // The counts are the exact curve's too (its percentiles are exact, not the sketch's).
    const exact = await queryExactCurve(api.db, runId);
    const counts = (curve: CurvePoint[]) => curve.map((p) => [p.level, p.requests, p.errors, p.window_s, p.in_progress]);
    expect(counts(fromMemory)).toEqual(counts(exact));
    expect(fromMemory.map((p) => p.level)).toEqual([1, 2]);
    expect(fromMemory.reduce((n, p) => n + p.requests, 0)).toBeGreaterThan(0);

    // A step change resets them: read again, still equal.
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/steps`, { level: 1, started_at: T0, measure_from: T0 + 1_000, ended_at: T0 + 1_500_000 })).status).toBe(200);
    live.reset(runId);
    expect(comparable(await live.curve(runId))).toEqual(comparable(await queryRollupCurve(api.db, runId)));
  }, 120_000);
});
