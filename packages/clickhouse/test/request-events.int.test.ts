import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insertSettings, loadMigrations, migrate, openDb, queryExactCurve, upsertStep } from '../src/index.ts';
import { RAW_EVENTS, storedMs } from '../src/raw-events.ts';
import { REQUEST_SECONDS } from '../src/request-seconds.ts';
import { splitStatements } from '../src/statements.ts';

/**
 * The move from kb_requests_v1 (Float64 ms) to kb_request_events_v1 (integer µs), on a copy: a v1
 * table filled the old way (names, missing compute/queue, statuses of every kind, sub-µs values),
 * the migrations run — after a copy cut short and a second copy that died before its record — and
 * then every event is there once, every exact percentile per run/level/name is the same to the µs,
 * and the rollups are unchanged; the new views then roll up new rows as the old views did.
 */
const dir = mkdtempSync(join(tmpdir(), 'kb-request-events-'));
const db = openDb({ mode: 'embedded', path: dir });
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const RUN_A = '5d1c7a3e-0b8f-4e43-9a55-3f4b2b9d1a01'; // sub-µs values
const RUN_B = '5d1c7a3e-0b8f-4e43-9a55-3f4b2b9d1a02'; // values already on the µs
const RUN_C = '5d1c7a3e-0b8f-4e43-9a55-3f4b2b9d1a03'; // B's events, stored after the move
const NAMES = ['', 'search', 'cart', 'GET /users/{id}'];
const STATUSES = [200, 200, 200, 201, 204, 302, 399, 400, 404, 500, 503, 0];
const T0 = 1_800_000_000_000;
const PER_LEVEL = 40_000;

/** A small seeded generator (mulberry32), so the data set is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function events(runId: string, seed: number, onMicros: boolean): Array<Record<string, unknown>> {
  const rnd = prng(seed);
  const v = (x: number) => (onMicros ? storedMs(x) : x);
  const rows: Array<Record<string, unknown>> = [];
  for (const level of [1, 2.5]) {
    for (let i = 0; i < PER_LEVEL; i++) {
      const latency = Math.exp(1 + 1.5 * rnd()) + rnd() * 1e-3;
      rows.push({
        run_id: runId,
        agent_id: `agent-${i % 3}`,
        level,
        // 0.5 ms apart plus a sub-µs part; the two levels 30 s apart.
        ts_ms: v(T0 + (level === 1 ? 0 : 30_000) + i * 0.5 + rnd() * 0.0009),
        latency_ms: v(latency),
        compute_ms: rnd() < 0.2 ? null : v(latency * 0.6 * rnd()),
        queue_ms: rnd() < 0.3 ? null : v(latency * 0.3 * rnd()),
        status: STATUSES[i % STATUSES.length],
        name: NAMES[i % NAMES.length],
      });
    }
  }
  return rows;
}

async function rows<T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  return (await db.client.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();
}

/** Exact percentiles per run, level and name, of a table's millisecond columns (or of an expression over them). */
function percentilesSql(table: string, ms: (col: string) => string = (c) => c): string {
  const ok = 'status BETWEEN 1 AND 399';
  return `SELECT toString(run_id) AS run, level, name, count() AS n, countIf(${ok}) AS ok,
                 quantilesExactInclusiveIf(0.5, 0.9, 0.99, 0.999)(${ms('latency_ms')}, ${ok}) AS latency,
                 quantilesExactInclusiveIf(0.5, 0.99)(${ms('assumeNotNull(compute_ms)')}, ${ok} AND compute_ms IS NOT NULL) AS compute,
                 quantilesExactInclusiveIf(0.5, 0.99)(${ms('assumeNotNull(queue_ms)')}, ${ok} AND queue_ms IS NOT NULL) AS queue
          FROM ${table} GROUP BY run, level, name ORDER BY run, level, name`;
}
interface Percentiles { run: string; level: number; name: string; n: string; ok: string; latency: number[]; compute: number[]; queue: number[] }

/** Every event as µs integers (v1's rounded the way the move rounds), in one order. */
function eventsSql(table: string): string {
  const us = (c: string) => (table === RAW_EVENTS ? `${c.replace('_ms', '_us')}` : `floor(${c} * 1000 + 0.5)`);
  return `SELECT toString(run_id) AS run, level, agent_id, toString(${us('ts_ms')}) AS ts, toString(${us('latency_ms')}) AS latency,
                 toString(${us('compute_ms')}) AS compute, toString(${us('queue_ms')}) AS queue, status, name
          FROM ${table} ORDER BY run, level, ts, agent_id, latency, compute, queue, status, name`;
}

/**
 * Both rollups, merged per key and answered (counts, sums and DDSketch quantiles), for a run. The
 * total from `totals`: kb_request_seconds_v1 before migration 100 (every event), REQUEST_SECONDS
 * after it (the table holds events without a name only, a named run's total is its names' rows).
 */
async function rollups(run: string, totals = REQUEST_SECONDS): Promise<unknown[]> {
  // The latency sum to 6 places: since 100 a named run's total adds up its names' sums, in another order.
  const cols = `sum(requests) AS requests, sum(ok) AS ok, max(last_ts_ms) AS last, round(sum(ok_latency_sum), 6) AS latency_sum,
                sum(compute_n) AS compute_n, sum(queue_n) AS queue_n, sum(other_n) AS other_n,
                quantilesDDMerge(0.005, 0.1, 0.5, 0.9, 0.99, 0.999)(latency) AS latency, quantilesDDMerge(0.005, 0.5, 0.99)(compute) AS compute,
                quantilesDDMerge(0.005, 0.5, 0.99)(queue) AS queue, quantilesDDMerge(0.005, 0.5, 0.99)(other) AS other`;
  return [
    ...(await rows(`SELECT level, second, ${cols} FROM ${totals} WHERE run_id = {run:UUID} GROUP BY level, second ORDER BY level, second`, { run })),
    ...(await rows(`SELECT level, name, second, ${cols} FROM kb_request_name_seconds_v1 WHERE run_id = {run:UUID} GROUP BY level, name, second ORDER BY level, name, second`, { run })),
  ];
}

async function insertV1(values: Array<Record<string, unknown>>): Promise<void> {
  await db.client.insert({ table: 'kb_requests_v1', values, format: 'JSONEachRow', clickhouse_settings: insertSettings() });
}

const countOf = async (table: string) => Number((await rows<{ n: string }>(`SELECT count() AS n FROM ${table}`))[0]?.n);

describe('the raw events table (integer µs) and the move from kb_requests_v1', () => {
  const all = loadMigrations();
  const move = all.find((m) => m.version === 91);

  it('keeps every event once and every exact percentile to the µs, after a copy cut short and a copy that died before its record', async () => {
    await migrate(db, all.filter((m) => m.version < 90));
    for (const [run, seed, onMicros] of [[RUN_A, 1, false], [RUN_B, 2, true]] as const) {
      for (const [i, level] of [1, 2.5].entries()) {
        const from = T0 + i * 30_000;
        await upsertStep(db, run, { level, started_at: from - 1_000, measure_from: from + 1_000.25, ended_at: from + 19_000.75, health: null });
      }
      await insertV1(events(run, seed, onMicros));
    }
    const stored = await countOf('kb_requests_v1');
    expect(stored).toBe(4 * PER_LEVEL);
    const before = {
      events: await rows(eventsSql('kb_requests_v1')),
      percentiles: await rows<Percentiles>(percentilesSql('kb_requests_v1')),
      rounded: await rows<Percentiles>(percentilesSql('kb_requests_v1', (c) => `floor(${c} * 1000 + 0.5) / 1000`)),
      rollups: [await rollups(RUN_A, 'kb_request_seconds_v1'), await rollups(RUN_B, 'kb_request_seconds_v1')],
    };
    // The sub-µs parts are really there, so the rounding is exercised.
    expect(before.percentiles).not.toEqual(before.rounded);

    // The table exists (090); then a copy cut short (a crash halfway through 091's INSERT) …
    await migrate(db, all.filter((m) => m.version < 91));
    const [truncate, insert] = splitStatements(move?.sql ?? '');
    expect(truncate).toMatch(/TRUNCATE TABLE IF EXISTS kb_request_events_v1$/);
    await db.client.command({ query: `${insert} LIMIT 12345` });
    expect(await countOf(RAW_EVENTS)).toBe(12_345);
    // … then a whole copy that died before 091 was recorded.
    await db.client.command({ query: insert as string });
    expect(await countOf(RAW_EVENTS)).toBe(stored + 12_345);

    const ran = await migrate(db);
    expect(ran.map((m) => m.version)).toEqual(all.filter((m) => m.version >= 91).map((m) => m.version));
    expect(await countOf(RAW_EVENTS)).toBe(stored);
    expect(await countOf('kb_requests_v1')).toBe(0);
    expect(await rows(eventsSql(RAW_EVENTS))).toEqual(before.events);

    // Exact percentiles: those of the µs-rounded values exactly, within 0.5 µs of the old ones.
    const after = await rows<Percentiles>(percentilesSql(RAW_EVENTS));
    expect(after).toEqual(before.rounded);
    for (const [i, p] of after.entries()) {
      const old = before.percentiles[i] as Percentiles;
      expect([p.run, p.level, p.name, p.n, p.ok]).toEqual([old.run, old.level, old.name, old.n, old.ok]);
      for (const series of ['latency', 'compute', 'queue'] as const) {
        for (const [j, v] of p[series].entries()) expect(Math.abs(v - (old[series][j] as number))).toBeLessThanOrEqual(0.0005 + 1e-9);
      }
    }
    // A reader of the ALIAS columns (the exact curve, per name) sees the same requests.
    for (const n of NAMES) {
      const curve = await queryExactCurve(db, RUN_A, n || undefined);
      expect(curve.map((c) => c.level)).toEqual([1, 2.5]);
      expect(curve.every((c) => c.requests > 0 && c.p50_ms !== null)).toBe(true);
    }
    // The rollups hold what they held (their rows came from these requests; nothing was rolled up
    // twice). RUN_B's values are on the µs: all of it, to the bit. RUN_A's have sub-µs parts, and
    // migration 100 rebuilt the seconds of its events without a name from the stored events,
    // rounded to the µs: there every count is the same, a latency sum moves by ≤ 0.5 µs an event
    // and a quantile by ≤ one sketch bin (a value rounded across a bin's edge: γ = 1.01005).
    type Second = Record<string, number | number[]>;
    const [afterA, afterB] = [await rollups(RUN_A), await rollups(RUN_B)] as Second[][];
    const [beforeA, beforeB] = before.rollups as Second[][];
    expect(afterB).toEqual(beforeB);
    const SKETCHES = ['latency', 'compute', 'queue', 'other'];
    const counts = (seconds: Second[]) => seconds.map((x) => Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'latency_sum' && !SKETCHES.includes(k))));
    expect(counts(afterA as Second[])).toEqual(counts(beforeA as Second[]));
    for (const [j, second] of (afterA as Second[]).entries()) {
      const old = (beforeA as Second[])[j] as Second;
      expect(Math.abs(Number(second.latency_sum) - Number(old.latency_sum))).toBeLessThanOrEqual(Number(old.ok) * 0.0005 + 1e-6);
      for (const k of SKETCHES) {
        for (const [q, v] of (second[k] as number[]).entries()) {
          const was = (old[k] as number[])[q] as number;
          expect(Math.max(v, was) / Math.min(v, was)).toBeLessThanOrEqual(1.0101);
        }
      }
    }

    // A start-up killed after 095 emptied kb_requests_v1 but before its record: 095 again, nothing lost.
    await db.client.command({ query: 'ALTER TABLE kb_schema_migrations DELETE WHERE version = 95 SETTINGS mutations_sync = 2' });
    expect((await migrate(db)).map((m) => m.version)).toEqual([95]);
    expect(await countOf(RAW_EVENTS)).toBe(stored);
  });

  it('rolls up new rows through the new views exactly as the old views rolled up the same requests', async () => {
    await db.client.command({
      query: `INSERT INTO ${RAW_EVENTS} (run_id, level, agent_id, ts_us, latency_us, compute_us, queue_us, status, name)
              SETTINGS insert_deduplication_token = 'copy-of-b'
              SELECT {c:UUID}, level, agent_id, ts_us, latency_us, compute_us, queue_us, status, name FROM ${RAW_EVENTS} WHERE run_id = {b:UUID}`,
      query_params: { b: RUN_B, c: RUN_C },
    });
    const [b, c] = [await rollups(RUN_B), await rollups(RUN_C)];
    expect(c.length).toBeGreaterThan(60);
    expect(c).toEqual(b);
  });

  it('prunes by the sort key when a query filters on the millisecond ALIAS columns', async () => {
    const plan = await (
      await db.client.query({
        query: `EXPLAIN indexes = 1 SELECT count() FROM ${RAW_EVENTS} AS r
                WHERE r.run_id = {run:UUID} AND r.level = {level:Float64} AND r.ts_ms >= {from:Float64} AND r.ts_ms < {to:Float64}`,
        query_params: { run: RUN_A, level: 1, from: T0 + 5_000.5, to: T0 + 5_100 },
        format: 'TabSeparatedRaw',
      })
    ).text();
    expect(plan).toMatch(/Condition: .*divide\(ts_us, 1000\) in \[/);
    const [, read, total] = /PrimaryKey[\s\S]*?Granules: (\d+)\/(\d+)/.exec(plan) ?? [];
    expect(Number(read)).toBeGreaterThan(0);
    expect(Number(read)).toBeLessThan(Number(total));
  });
});
