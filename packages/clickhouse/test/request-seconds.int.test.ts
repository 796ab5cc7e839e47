import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from '../src/index.ts';
import { RAW_EVENTS } from '../src/raw-events.ts';
import { REQUEST_SECONDS } from '../src/request-seconds.ts';
import { splitStatements } from '../src/statements.ts';

/**
 * Migration 100 on a copy: runs stored with names, without, and with both, rolled up the old way
 * (every event sketched into the total rollup, named ones into the per-name rollup too); after the
 * migration — and after it ran a second time, as a start-up killed before its record does — every
 * run's total read through REQUEST_SECONDS is what the total rollup held, second for second, and
 * kb_request_seconds_v1 holds only events without a name. New rows then go to one rollup each.
 */
const dir = mkdtempSync(join(tmpdir(), 'kb-request-seconds-'));
const db = openDb({ mode: 'embedded', path: dir });
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const NAMED = '7a1c7a3e-0b8f-4e43-9a55-3f4b2b9d1a01'; // every event named
const MIXED = '7a1c7a3e-0b8f-4e43-9a55-3f4b2b9d1a02'; // a quarter without a name
const UNNAMED = '7a1c7a3e-0b8f-4e43-9a55-3f4b2b9d1a03';
const LATER = '7a1c7a3e-0b8f-4e43-9a55-3f4b2b9d1a04'; // MIXED's events, stored after the migration
const EVENTS = 30_000;
const T0_US = 1_800_000_000_000_000;

/** 30,000 events, 1,000 a second, three levels; names from `names` in turn. */
async function store(run: string, names: string[], token = run): Promise<void> {
  await db.client.command({
    query: `INSERT INTO ${RAW_EVENTS} (run_id, level, agent_id, ts_us, latency_us, compute_us, queue_us, status, name)
            SETTINGS insert_deduplication_token = {token:String}
            SELECT {run:UUID}, 1 + intDiv(number, 10000), 'a', {t0:Int64} + number * 1000 + number % 7,
                   1000 + (number * 7919) % 50000, if(number % 7 = 0, NULL, 500 + number % 300), if(number % 11 = 0, NULL, number % 97),
                   if(number % 50 = 0, 503, 200), {names:Array(String)}[1 + number % length({names:Array(String)})]
            FROM numbers({n:UInt64})`,
    query_params: { run, names, token, t0: T0_US, n: EVENTS },
  });
}

/** A table's (or REQUEST_SECONDS') rows of a run, merged per (level, second) and answered. */
async function seconds(run: string, table: string): Promise<unknown[]> {
  const result = await db.client.query({
    query: `SELECT level, second, sum(requests) AS requests, sum(ok) AS ok, max(last_ts_ms) AS last,
                   round(sum(ok_latency_sum), 6) AS latency_sum, sum(compute_n) AS compute_n, sum(queue_n) AS queue_n, sum(other_n) AS other_n,
                   quantilesDDMerge(0.005, 0.1, 0.5, 0.99)(latency) AS latency, quantilesDDMerge(0.005, 0.5, 0.99)(compute) AS compute,
                   quantilesDDMerge(0.005, 0.5, 0.99)(queue) AS queue, quantilesDDMerge(0.005, 0.5, 0.99)(other) AS other
            FROM ${table} WHERE run_id = {run:UUID} GROUP BY level, second ORDER BY level, second`,
    query_params: { run },
    format: 'JSONEachRow',
  });
  return result.json();
}

async function requestsIn(table: string, run: string): Promise<number> {
  const result = await db.client.query({ query: `SELECT sum(requests) AS n FROM ${table} WHERE run_id = {run:UUID}`, query_params: { run }, format: 'JSONEachRow' });
  return Number(((await result.json()) as Array<{ n: string }>)[0]?.n);
}

describe('one rollup per event: the total rollup without named events (migration 100)', () => {
  const all = loadMigrations();
  const split = all.find((m) => m.version === 100);

  it('keeps every run’s total second for second, also when it runs twice', async () => {
    await migrate(db, all.filter((m) => m.version < 100));
    await store(NAMED, ['search', 'cart', 'GET /users/{id}']);
    await store(MIXED, ['', 'search', 'cart', 'checkout']);
    await store(UNNAMED, ['']);
    const runs = [NAMED, MIXED, UNNAMED];
    const before = await Promise.all(runs.map((r) => seconds(r, 'kb_request_seconds_v1')));
    expect(before.map((b) => b.length)).toEqual([30, 30, 30]);
    // Before: named events counted in both rollups.
    expect(await requestsIn('kb_request_seconds_v1', NAMED)).toBe(EVENTS);
    expect(await requestsIn('kb_request_name_seconds_v1', NAMED)).toBe(EVENTS);
    const perName = await Promise.all(runs.map((r) => requestsIn('kb_request_name_seconds_v1', r)));

    expect((await migrate(db)).map((m) => m.version)).toEqual([100]);
    const check = async () => {
      expect(await Promise.all(runs.map((r) => seconds(r, REQUEST_SECONDS)))).toEqual(before);
      expect(await Promise.all(runs.map((r) => requestsIn('kb_request_seconds_v1', r)))).toEqual([0, EVENTS / 4, EVENTS]);
      expect(await Promise.all(runs.map((r) => requestsIn('kb_request_name_seconds_v1', r)))).toEqual(perName);
    };
    await check();
    // A start-up killed after the statements but before the record runs them all again: the same.
    for (const statement of splitStatements(split?.sql ?? '')) await db.client.command({ query: statement });
    await check();
  });

  it('rolls new events into one rollup each: a mixed run’s total as the old views rolled up the same events', async () => {
    await store(LATER, ['', 'search', 'cart', 'checkout']);
    expect(await seconds(LATER, REQUEST_SECONDS)).toEqual(await seconds(MIXED, REQUEST_SECONDS));
    expect(await requestsIn('kb_request_seconds_v1', LATER)).toBe(EVENTS / 4);
    expect(await requestsIn('kb_request_name_seconds_v1', LATER)).toBe((EVENTS * 3) / 4);
  });

  it('reads each table by its primary key when a run is asked for', async () => {
    const plan = await (
      await db.client.query({
        query: `EXPLAIN indexes = 1 SELECT sum(requests) FROM ${REQUEST_SECONDS} AS r WHERE r.run_id = {run:UUID} AND r.level = 2`,
        query_params: { run: MIXED },
        format: 'TabSeparatedRaw',
      })
    ).text();
    // Each table's read, then its primary key's condition on both the run and the level.
    const reads = [...plan.matchAll(/ReadFromMergeTree \(\w+\.(kb_\w+)\)[^]*?PrimaryKey[^]*?Condition: and\(\(level in \[2\., 2\.\]\), \(run_id in \[/g)];
    expect(reads.map((m) => m[1])).toEqual(['kb_request_seconds_v1', 'kb_request_name_seconds_v1']);
  });
});
