/**
 * What migration 100 costs the reads: a named run's total rollup rows are its names' rows (20
 * names: 20 rows a second where a run without names has one), merged when read. The same events
 * stored twice, once with 20 names and once without, then the whole run's rollup curve
 * (`queryRollupCurve`, no cache) and its timeline (`queryRunTimeline`) read from each, alternated
 * round by round; the ratio named ÷ unnamed is the figure (absolute times move with the box).
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/named-total-read.bench.ts
 *   env: KB_BENCH_PER_LEVEL (requests a level, default 200000), KB_BENCH_ROUNDS (7)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertRun, microsSql, migrate, openDb, queryRollupCurve, queryRunTimeline, RAW_EVENTS, upsertStep, type Db } from '@kneeboard/clickhouse';
import { quantile, report } from './lib/report.ts';

const NAMES = 20;
const LEVELS = 8;
const STEP_MS = 30_000;
const PER_LEVEL = Number(process.env.KB_BENCH_PER_LEVEL ?? 200_000);
const ROUNDS = Number(process.env.KB_BENCH_ROUNDS ?? 7);

/** One run of LEVELS × PER_LEVEL requests over 30 s steps, named `endpoint-0…19` in turn or not at all. */
async function storeRun(db: Db, named: boolean): Promise<string> {
  const run = await insertRun(db, { service: 'named-total-read-bench', release: named ? 'named' : 'unnamed', load_model: 'closed', parameter: 'concurrency', tags: {} });
  const t0 = 1_800_000_000_000;
  for (let l = 1; l <= LEVELS; l++) {
    const started = t0 + (l - 1) * (STEP_MS + 1_000) + 137.25;
    await upsertStep(db, run.id, { level: 2 ** (l - 1), started_at: started, measure_from: started + 2_000, ended_at: started + STEP_MS, health: null });
    await db.client.command({
      query: `INSERT INTO ${RAW_EVENTS} (run_id, agent_id, level, ts_us, latency_us, compute_us, queue_us, status, name)
        SELECT {run:UUID}, 'bench', {level:Float64}, toInt64(${microsSql('{started:Float64} + number * {span:Float64} / {n:UInt32}')}),
               toUInt64(${microsSql('5 * (1 + number % 7) + (cityHash64(number) % 1000) / 100')}), toUInt64(${microsSql('3 + number % 5')}), NULL,
               if(number % 200 = 0, 503, 200), ${named ? `concat('endpoint-', toString(number % ${NAMES}))` : "''"}
        FROM numbers({n:UInt32})`,
      query_params: { run: run.id, level: 2 ** (l - 1), started, span: STEP_MS, n: PER_LEVEL },
    });
  }
  return run.id;
}

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-named-total-'));
const db = openDb({ mode: 'embedded', path: dir });
try {
  await migrate(db);
  const runs = { unnamed: await storeRun(db, false), named: await storeRun(db, true) };
  await db.client.command({ query: 'OPTIMIZE TABLE kb_request_seconds_v1 FINAL' });
  await db.client.command({ query: 'OPTIMIZE TABLE kb_request_name_seconds_v1 FINAL' });
  const reads = {
    'whole curve (rollup)': (run: string) => queryRollupCurve(db, run),
    timeline: (run: string) => queryRunTimeline(db, run),
  };
  const times: Record<string, Record<string, number[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [read, fn] of Object.entries(reads)) {
      for (const kind of round % 2 === 0 ? (['unnamed', 'named'] as const) : (['named', 'unnamed'] as const)) {
        const t0 = performance.now();
        const answer = await fn(runs[kind]);
        const ms = performance.now() - t0;
        if (round > 0) ((times[read] ??= {})[kind] ??= []).push(ms);
        if ('length' in answer && answer.length !== LEVELS) throw new Error(`${read}: ${answer.length} levels`);
      }
    }
  }
  // The two runs' curves agree (the same events): the counts exactly.
  const [a, b] = [await queryRollupCurve(db, runs.unnamed), await queryRollupCurve(db, runs.named)];
  if (JSON.stringify(a.map((p) => p.requests)) !== JSON.stringify(b.map((p) => p.requests))) throw new Error('the named and unnamed runs disagree');
  const rows = Object.entries(times).map(([read, t]) => {
    const [u, n] = [quantile(t.unnamed ?? [], 0.5), quantile(t.named ?? [], 0.5)];
    return { read, 'without names ms (median)': Number(u.toFixed(1)), '20 names ms (median)': Number(n.toFixed(1)), 'named ÷ unnamed': Number((n / u).toFixed(2)) };
  });
  report('named-total-read', rows, { requests_per_level: PER_LEVEL, levels: LEVELS, names: NAMES, rounds: ROUNDS - 1, times });
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
