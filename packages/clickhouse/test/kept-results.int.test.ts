import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRun, migrate, openDb, queryComparisonSamples, queryCurve, queryRunSummaries, upsertStep } from '../src/index.ts';
import { GRID_POINTS } from '../src/queries/samples-rollup.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-kept-'));
const db = openDb({ mode: 'embedded', path: dir });
beforeAll(() => migrate(db));
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `n` requests spread evenly over [from, from + spanMs), latencies 1–100 ms, every 50th a 500. */
async function store(runId: string, level: number, from: number, spanMs: number, n: number, salt: number): Promise<void> {
  await db.client.command({
    query: `INSERT INTO kb_request_events_v1 (run_id, agent_id, level, ts_us, latency_us, compute_us, queue_us, status)
            SELECT {run:UUID}, 'test', {level:Float64}, toInt64(floor(({from:Float64} + number * {span:Float64} / {n:UInt32}) * 1000 + 0.5)),
                   1000 + cityHash64(number, {salt:UInt32}) % 99000, NULL, NULL, if(number % 50 = 0, 500, 200)
            FROM numbers({n:UInt32})`,
    query_params: { run: runId, level, from, span: spanMs, n, salt },
    clickhouse_settings: { insert_deduplication_token: `${runId}:${salt}` },
  });
}

describe('results kept per version of a run', () => {
  it('a kept curve and summary follow a new batch and a moved window', async () => {
    const run = await insertRun(db, { service: 'kept', release: 'v1', load_model: 'closed', parameter: 'concurrency', tags: {} });
    await upsertStep(db, run.id, { level: 1, started_at: 1_000, measure_from: 1_500.5, ended_at: 21_500.5, health: null });
    await store(run.id, 1, 1_000, 20_000, 10_000, 1);
    const first = await queryCurve(db, run.id, 'rollup');
    expect((await queryCurve(db, run.id, 'rollup')).curve).toBe(first.curve); // kept: the same object

    await store(run.id, 1, 1_000, 20_000, 5_000, 2);
    const second = await queryCurve(db, run.id, 'rollup');
    expect(second.curve[0]?.requests).toBeGreaterThan(first.curve[0]?.requests as number);
    const exact = await queryCurve(db, run.id, 'exact');
    expect(second.curve.map((p) => p.requests)).toEqual(exact.curve.map((p) => p.requests));
    expect((await queryRunSummaries(db, [run.id])).get(run.id)?.requests).toBe(exact.curve[0]?.requests);

    await upsertStep(db, run.id, { level: 1, started_at: 1_000, measure_from: 11_000.5, ended_at: 21_500.5, health: null });
    const moved = await queryCurve(db, run.id, 'rollup');
    expect(moved.curve[0]?.requests).toBeLessThan(second.curve[0]?.requests as number);
    expect((await queryRunSummaries(db, [run.id])).get(run.id)?.requests).toBe(moved.curve[0]?.requests);
  });

  it('a large run is sampled from the rollup, said so, with whole-second QPS buckets and exact counts', async () => {
    const run = await insertRun(db, { service: 'kept', release: 'v2', load_model: 'closed', parameter: 'concurrency', tags: {} });
    await upsertStep(db, run.id, { level: 4, started_at: 0, measure_from: 1_250, ended_at: 13_750, health: null });
    await store(run.id, 4, 0, 15_000, 60_000, 3);
    const rolled = await queryComparisonSamples(db, run.id, 'rollup');
    const exact = await queryComparisonSamples(db, run.id, 'exact');
    expect(rolled.source).toBe('rollup');
    expect(exact.source).toBe('exact');
    const [r, e] = [rolled.samples[0], exact.samples[0]];
    expect(r?.latencies).toHaveLength(GRID_POINTS);
    // Seconds 2..12 are whole inside [1.25 s, 13.75 s]: 11 buckets of 4,000 requests, 98% successful.
    expect(r?.per_second_ok).toHaveLength(11);
    for (const n of r?.per_second_ok ?? []) expect(n).toBeGreaterThanOrEqual(3_900);
    // The two samples describe the same distribution: medians and p99s within 2%.
    const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] as number;
    for (const q of [0.5, 0.99]) expect(Math.abs(at(r?.latencies ?? [], q) / at(e?.latencies ?? [], q) - 1)).toBeLessThan(0.02);
  });

  it('a run too small for the grid falls back to raw rows, and says exact', async () => {
    const run = await insertRun(db, { service: 'kept', release: 'v3', load_model: 'closed', parameter: 'concurrency', tags: {} });
    await upsertStep(db, run.id, { level: 1, started_at: 0, measure_from: 500, ended_at: 12_500, health: null });
    await store(run.id, 1, 0, 13_000, 5_000, 4);
    const s = await queryComparisonSamples(db, run.id, 'rollup');
    expect(s.source).toBe('exact');
    expect(s.samples[0]?.latencies.length).toBeLessThanOrEqual(5_000);
  });
});
