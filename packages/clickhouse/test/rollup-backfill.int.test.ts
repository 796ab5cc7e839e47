import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countRequests, countRollupRequests, loadMigrations, migrate, openDb, queryExactCurve, queryRollupCurve, queryRunSummaries } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-backfill-'));
const db = openDb({ mode: 'embedded', path: dir });
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const RUN = '7b0a1c52-4f44-4c63-9d39-2f1d2b6f0d11';
const ROLLUP_FROM = 13;

describe('the rollup migrations', () => {
  it('backfill the runs stored before them, so old runs answer from the rollup too', async () => {
    const all = loadMigrations();
    await migrate(db, all.filter((m) => m.version < ROLLUP_FROM));
    await db.client.command({
      query: `INSERT INTO kb_steps_v1 (run_id, level, started_at_ms, measure_from_ms, ended_at_ms, version)
              VALUES ({run:UUID}, 1, 1000, 1700.25, 20300.75, 1), ({run:UUID}, 2, 30000, 30000, 50000, 1)`,
      query_params: { run: RUN },
    });
    await db.client.command({
      query: `INSERT INTO kb_requests_v1 (run_id, agent_id, level, ts_ms, latency_ms, compute_ms, queue_ms, status)
              SELECT {run:UUID}, 'old', if(number < 20000, 1, 2), if(number < 20000, 1000 + number, 30000 + (number - 20000)),
                     1 + (cityHash64(number) % 100000) / 1000, NULL, NULL, if(number % 97 = 0, 500, 200)
              FROM numbers(40000)`,
      query_params: { run: RUN },
    });
    // Stored the old way: in kb_requests_v1 (the migrations from 090 move them to the raw events table).
    const v1 = await db.client.query({ query: 'SELECT count() AS n FROM kb_requests_v1 WHERE run_id = {run:UUID}', query_params: { run: RUN }, format: 'JSONEachRow' });
    expect(Number(((await v1.json()) as Array<{ n: string }>)[0]?.n)).toBe(40_000);

    const ran = await migrate(db, all);
    expect(ran.map((m) => m.version)).toEqual(all.filter((m) => m.version >= ROLLUP_FROM).map((m) => m.version));
    expect(await countRollupRequests(db, RUN)).toBe(await countRequests(db, RUN));

    const [exact, rollup] = [await queryExactCurve(db, RUN), await queryRollupCurve(db, RUN)];
    expect(rollup.map((p) => [p.level, p.requests, p.errors])).toEqual(exact.map((p) => [p.level, p.requests, p.errors]));
    for (const [i, e] of exact.entries()) {
      for (const key of ['p50_ms', 'p90_ms', 'p99_ms', 'p999_ms'] as const) {
        expect(Math.abs((rollup[i]?.[key] as number) / (e[key] as number) - 1)).toBeLessThanOrEqual(0.01);
      }
    }
    const summary = (await queryRunSummaries(db, [RUN])).get(RUN);
    expect(summary).toMatchObject({ levels: 2, requests: exact.reduce((s, p) => s + p.requests, 0) });
  });
});
