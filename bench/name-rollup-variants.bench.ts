/**
 * What the per-name rollup costs the engine, and what a leaner one would: the same Arrow batches
 * stored straight into an embedded engine (no API, the storage package's own group insert, as
 * ingest.bench.ts's engine ceiling), each case in its own process on a fresh data directory,
 * cases alternated round by round on the same box. CPU per event (the process's user + system
 * time while inserting) is the firm figure on a shared box; events/s is printed too.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/name-rollup-variants.bench.ts [--rounds 3] [--events 1200000]
 *        [--rate 20000] [--cases before-100-none,before-100,none,current] [--report name-rollup-variants]
 *
 * Cases (20 names round robin in all but `none`). The prototypes that replace 094's view (latency,
 * counts, buffered, …) were measured before migration 100 (results 1–11): since 100 the total rollup
 * no longer takes named events, so in them a named event is in no total; compare them to `before-100`.
 *   none     no names: today's tables, the per-name view finds nothing to write
 *   current  names into today's per-name rollup (071, view 094): counts + 4 sketches per row; since
 *            migration 100 the total rollup takes only events without a name (one rollup part per insert)
 *   before-100, before-100-none  the rollups before migration 100 (093's view: every event into the
 *            total rollup too), with and without names
 *   latency  094 replaced by a prototype table + view with the counts and the latency sketch only
 *   counts   the same without any sketch: the floor of any per-(run, level, name, second) rollup
 *   no-view  094 dropped, nothing per name: what the raw table's name column costs alone
 *   counts-null  `counts` into a Null table: the view's GROUP BY without a part or merges
 *   no-dedup   `current` with the per-name table's deduplication window set to 0
 *   buffered   `latency` with its view writing through a Buffer table (parts once per 1–2 s)
 *   one-table  total and per-name rows in one table from one GROUPING SETS view (one rollup part per insert)
 *   chain      the sketches computed once: 093 and 094 replaced by a view from the raw rows into the
 *              per-name table for every row (name '' included) and a view from that table into the
 *              total rollup that merges each second's per-name states (quantilesDDMergeState)
 *   chain-unnamed  `chain` with events without names: what it would cost runs without names
 *   names-only, names-only-unnamed  `chain` without its second view: one rollup table keyed by name
 *              ('' without names), no total rows written on insert, with and without names
 *   no-optimize, none-no-optimize  `current` and `none` with optimize_on_insert = 0 (no merge pass over the views' blocks on insert)
 *   utf8, dict  today's tables and views, each batch inserted by this bench's own statement (no
 *              ledger): `utf8` sends names as today (a utf8 column, read as String), `dict` as an Arrow
 *              dictionary read straight into LowCardinality(String) (what names as a dictionary on
 *              the wire would save the engine); `utf8-none` the same statement without names
 *   deferred   094 dropped; once the inserts are done, each level's per-name rollup is written in one
 *              INSERT … SELECT from its raw rows (what rolling a level up once its step is over would cost;
 *              the roll's CPU is counted)
 *
 * Every case's CPU includes the merges its inserts left: the clock stops once system.merges is empty
 * (at most 60 s after the last insert), so a table whose parts are merged later is not counted as free.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { insertEventGroup, loadMigrations, migrate, openDb, REQUEST_SECONDS, writeLedger } from '@kneeboard/clickhouse';
import { allocateColumns, encodeArrowColumns, type EventColumns } from '@kneeboard/event-wire';
import { cpuSeconds, loadAverage } from './lib/process-cpu.ts';
import { quantile, report } from './lib/report.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    events: { type: 'string', default: '1200000' },
    /** Requests per second of the run the events replay (their timestamps' spacing): rollup rows per event scale with 1/rate. */
    rate: { type: 'string', default: '20000' },
    cases: { type: 'string', default: 'before-100-none,before-100,none,current' },
    /** Where the results go: results/NAME.json. */
    report: { type: 'string', default: 'name-rollup-variants' },
    /** Internal: run one case in this process and print its figures as JSON. */
    case: { type: 'string' },
  },
});

const BATCH = 20_000;
const GROUP = 4;
const NAMES = Array.from({ length: 20 }, (_, i) => `GET /api/endpoint-${i}/{id}`);

const COUNTS = `requests SimpleAggregateFunction(sum, UInt64), ok SimpleAggregateFunction(sum, UInt64),
  last_ts_ms SimpleAggregateFunction(max, Float64), ok_latency_sum SimpleAggregateFunction(sum, Float64)`;
const COUNTS_SELECT = `count() AS requests, countIf(status BETWEEN 1 AND 399) AS ok, max(ts_ms) AS last_ts_ms,
  sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum`;

/** The rest of 093/094's SELECT: the server-time counts and the four sketch states. */
const SERVER_COUNTS_AND_SKETCHES = `countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
  countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
  countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
  quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
  quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
  quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
  quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
    status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other`;

/** A prototype per-name rollup in place of 094's view: `extra` columns and their SELECT. */
function prototype(extraColumns: string, extraSelect: string): string[] {
  return [
    'DROP VIEW kb_request_name_seconds_from_events_mv_v1',
    `CREATE TABLE kb_probe_name_seconds (run_id UUID, level Float64, name LowCardinality(String), second Int64, ${COUNTS}${extraColumns})
     ENGINE = AggregatingMergeTree ORDER BY (run_id, level, name, second) SETTINGS non_replicated_deduplication_window = 10000`,
    `CREATE MATERIALIZED VIEW kb_probe_name_seconds_mv TO kb_probe_name_seconds AS
     SELECT run_id, level, name, toInt64(floor(ts_ms / 1000)) AS second, ${COUNTS_SELECT}${extraSelect}
     FROM kb_request_events_v1 WHERE name != '' GROUP BY run_id, level, name, second`,
  ];
}

/** The per-name rollup's SELECT (094's) over one level's raw rows: a deferred roll-up of that level. */
const ROLL_LEVEL = `INSERT INTO kb_request_name_seconds_v1
  SETTINGS insert_deduplicate = 0, insert_deduplication_token = '', async_insert = 0
  SELECT run_id, level, name, toInt64(floor(ts_ms / 1000)) AS second, ${COUNTS_SELECT},
    ${SERVER_COUNTS_AND_SKETCHES}
  FROM kb_request_events_v1
  WHERE run_id = {run:UUID} AND level = {level:Float64} AND name != ''
  GROUP BY run_id, level, name, second`;

/** The per-name view for every row, and the total rollup merged from its rows (the `chain` cases). */
const CHAIN = [
  'DROP VIEW kb_request_seconds_unnamed_mv_v1',
  'DROP VIEW kb_request_name_seconds_from_events_mv_v1',
  `CREATE MATERIALIZED VIEW kb_probe_names_all_mv TO kb_request_name_seconds_v1 AS
   SELECT run_id, level, name, toInt64(floor(ts_ms / 1000)) AS second, ${COUNTS_SELECT},
     ${SERVER_COUNTS_AND_SKETCHES}
   FROM kb_request_events_v1
   GROUP BY run_id, level, name, second`,
  `CREATE MATERIALIZED VIEW kb_probe_total_from_names_mv TO kb_request_seconds_v1 AS
   SELECT run_id, level, second, sum(requests) AS requests, sum(ok) AS ok, max(last_ts_ms) AS last_ts_ms,
     sum(ok_latency_sum) AS ok_latency_sum, sum(compute_n) AS compute_n, sum(queue_n) AS queue_n, sum(other_n) AS other_n,
     quantilesDDMergeState(0.005, 0.5)(latency) AS latency, quantilesDDMergeState(0.005, 0.5)(compute) AS compute,
     quantilesDDMergeState(0.005, 0.5)(queue) AS queue, quantilesDDMergeState(0.005, 0.5)(other) AS other
   FROM kb_request_name_seconds_v1
   GROUP BY run_id, level, second`,
];

/** Migration 100 undone: its view dropped, 093's (the total rollup from every event) back. */
const BEFORE_100 = ['DROP VIEW kb_request_seconds_unnamed_mv_v1', loadMigrations().find((m) => m.version === 93)?.sql ?? 'SELECT missing_093'];

const CASES: Record<string, { names: boolean; sql: string[]; rollLevels?: boolean; wire?: 'utf8' | 'dict' }> = {
  'utf8-none': { names: false, sql: [], wire: 'utf8' },
  utf8: { names: true, sql: [], wire: 'utf8' },
  dict: { names: true, sql: [], wire: 'dict' },
  none: { names: false, sql: [] },
  current: { names: true, sql: [] },
  latency: {
    names: true,
    sql: prototype(
      ', latency AggregateFunction(quantilesDD(0.005, 0.5), Float64)',
      ', quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency',
    ),
  },
  counts: { names: true, sql: prototype('', '') },
  // `counts` into a Null table: the view's GROUP BY runs, nothing is written or merged.
  'counts-null': {
    names: true,
    sql: prototype('', '').map((q) => q.replace(/ENGINE = AggregatingMergeTree[^]*$/, 'ENGINE = Null')),
  },
  // Today's per-name rollup without its deduplication log (the hash and log line of each insert's block).
  'no-dedup': { names: true, sql: ['ALTER TABLE kb_request_name_seconds_v1 MODIFY SETTING non_replicated_deduplication_window = 0'] },
  // The latency prototype, but its view writes into a Buffer flushed every 1–2 s: parts of the
  // per-name table once per flush instead of once per insert (not durable: a probe of the cost only).
  buffered: {
    names: true,
    sql: [
      ...prototype(
        ', latency AggregateFunction(quantilesDD(0.005, 0.5), Float64)',
        ', quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency',
      ).slice(0, 2),
      'CREATE TABLE kb_probe_buffer AS kb_probe_name_seconds ENGINE = Buffer(currentDatabase(), kb_probe_name_seconds, 1, 1, 2, 100000000, 1000000000, 1000000000, 10000000000)',
      `CREATE MATERIALIZED VIEW kb_probe_name_seconds_mv TO kb_probe_buffer AS
       SELECT run_id, level, name, toInt64(floor(ts_ms / 1000)) AS second, ${COUNTS_SELECT},
              quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency
       FROM kb_request_events_v1 WHERE name != '' GROUP BY run_id, level, name, second`,
    ],
  },
  // Total and per-name rows in ONE table from ONE view (GROUPING SETS; the total's rows have
  // name ''), all four sketches: one rollup part per insert, as without names.
  'one-table': {
    names: true,
    sql: [
      'DROP VIEW kb_request_seconds_unnamed_mv_v1',
      'DROP VIEW kb_request_name_seconds_from_events_mv_v1',
      'CREATE TABLE kb_probe_all_seconds AS kb_request_name_seconds_v1',
      `CREATE MATERIALIZED VIEW kb_probe_all_seconds_mv TO kb_probe_all_seconds AS
       SELECT run_id, level, name, toInt64(floor(ts_ms / 1000)) AS second, ${COUNTS_SELECT},
         ${SERVER_COUNTS_AND_SKETCHES}
       FROM kb_request_events_v1
       GROUP BY GROUPING SETS ((run_id, level, second), (run_id, level, name, second))`,
    ],
  },
  'no-view': { names: true, sql: ['DROP VIEW kb_request_name_seconds_from_events_mv_v1'] },
  // The rollups before migration 100: every event into the total rollup, named ones into the per-name rollup too.
  'before-100': { names: true, sql: BEFORE_100 },
  'before-100-none': { names: false, sql: BEFORE_100 },
  // Events without names and no per-name view: what the per-name view costs runs that have no names.
  'none-no-view': { names: false, sql: ['DROP VIEW kb_request_name_seconds_from_events_mv_v1'] },
  chain: { names: true, sql: CHAIN },
  // One rollup for every run: each row keyed by name ('' for runs without names), no total table
  // written on insert (a named run's total would be merged from its names' rows when read).
  'names-only': { names: true, sql: CHAIN.slice(0, 3) },
  'names-only-unnamed': { names: false, sql: CHAIN.slice(0, 3) },
  'chain-unnamed': { names: false, sql: CHAIN },
  // The rollups' blocks written as the views grouped them, without the insert's own merge pass
  // (optimize_on_insert: a view's block has one row per key already).
  'no-optimize': { names: true, sql: ['SET optimize_on_insert = 0'] },
  'none-no-optimize': { names: false, sql: ['SET optimize_on_insert = 0'] },
  deferred: { names: true, sql: ['DROP VIEW kb_request_name_seconds_from_events_mv_v1'], rollLevels: true },
};

const LEVELS = 10;
const RATE = Number(values.rate);

/** ingest.bench.ts's events: plausible timings seeded by the batch number, names round robin. */
function columnsOf(b: number, named: boolean): EventColumns {
  const c = allocateColumns(BATCH);
  const t0 = Date.now() - 3_600_000;
  for (let i = 0; i < BATCH; i++) {
    const k = b * BATCH + i;
    c.level[i] = 1 + (b % LEVELS);
    c.ts_ms[i] = t0 + (k * 1000) / RATE;
    c.latency_ms[i] = 7 + ((k * 7919) % 1000) / 37;
    c.compute_ms[i] = k % 50 === 0 ? Number.NaN : 4 + ((k * 104729) % 100) / 50;
    c.queue_ms[i] = k % 50 === 0 ? Number.NaN : ((k * 31) % 17) / 3;
    c.status[i] = k % 500 === 0 ? 503 : 200;
  }
  if (!named) return c;
  const index = new Uint32Array(BATCH);
  for (let i = 0; i < BATCH; i++) index[i] = (b * BATCH + i) % NAMES.length;
  return { ...c, name: { values: NAMES, index } };
}

/** Waits (at most 60 s) until no merge runs, so the merges the inserts left are part of the CPU counted. */
async function mergesDone(db: ReturnType<typeof openDb>): Promise<void> {
  const until = performance.now() + 60_000;
  while (performance.now() < until) {
    const result = await db.client.query({ query: 'SELECT count() AS n FROM system.merges', format: 'JSONEachRow' });
    const [row] = (await result.json()) as Array<{ n: string }>;
    if (Number(row?.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const SPILL = '/dev/shm';
const STRUCTURE = 'level Float64, ts_ms Float64, latency_ms Float64, compute_ms Nullable(Float64), queue_ms Nullable(Float64), status UInt16';
/** insert-events.ts's statement over a glob of spill files, the name read as `nameType`. */
const wireInsert = (nameType: string) => `INSERT INTO kb_request_events_v1 (run_id, agent_id, level, ts_us, latency_us, compute_us, queue_us, status, name)
  SETTINGS insert_deduplicate = 1, insert_deduplication_token = {token:String}, async_insert = 0,
           deduplicate_blocks_in_dependent_materialized_views = 1, input_format_arrow_allow_missing_columns = 1
  SELECT {run:UUID}, 'bench', level, toInt64(floor(ts_ms * 1000 + 0.5)), toUInt64(floor(latency_ms * 1000 + 0.5)),
    if(isNull(compute_ms), NULL, toUInt64(floor(ifNotFinite(assumeNotNull(compute_ms), 0) * 1000 + 0.5))),
    if(isNull(queue_ms), NULL, toUInt64(floor(ifNotFinite(assumeNotNull(queue_ms), 0) * 1000 + 0.5))), status, name
  FROM file({path:String}, 'ArrowStream', '${STRUCTURE}, name ${nameType}')`;

/**
 * The batches as spill files: as encoded (utf8 names), or re-written by the engine with the name as
 * an Arrow dictionary (output_format_arrow_low_cardinality_as_dictionary), before the clock starts.
 */
async function spillBatches(db: ReturnType<typeof openDb>, bodies: Uint8Array[], wire: 'utf8' | 'dict', tag: string): Promise<string[]> {
  const paths: string[] = [];
  for (const [i, body] of bodies.entries()) {
    const utf8 = join(SPILL, `kb-probe-${tag}-${i}.arrow`);
    writeFileSync(utf8, body);
    if (wire === 'utf8') {
      paths.push(utf8);
      continue;
    }
    const dict = join(SPILL, `kb-probe-${tag}-${i}.dict.arrow`);
    await db.client.command({
      query: `INSERT INTO FUNCTION file({dict:String}, 'ArrowStream', '${STRUCTURE}, name LowCardinality(String)')
              SETTINGS output_format_arrow_low_cardinality_as_dictionary = 1, engine_file_truncate_on_insert = 1
              SELECT level, ts_ms, latency_ms, compute_ms, queue_ms, status, toLowCardinality(name) FROM file({utf8:String}, 'ArrowStream', '${STRUCTURE}, name String')`,
      query_params: { dict, utf8 },
    });
    rmSync(utf8);
    paths.push(dict);
  }
  return paths;
}

/** The bench's own statement stored every event, and the per-name rollup counted every named one. */
async function checkStored(db: ReturnType<typeof openDb>, events: number, named: boolean): Promise<void> {
  const result = await db.client.query({
    query: `SELECT (SELECT count() FROM kb_request_events_v1) AS raw, (SELECT uniqExact(name) FROM kb_request_events_v1) AS names,
                   (SELECT sum(requests) FROM kb_request_name_seconds_v1) AS per_name, (SELECT sum(requests) FROM ${REQUEST_SECONDS}) AS total`,
    format: 'JSONEachRow',
  });
  const [row] = (await result.json()) as Array<Record<string, string>>;
  const want = { raw: events, names: named ? NAMES.length : 1, per_name: named ? events : 0, total: events };
  const got = Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)]));
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`stored ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
}

interface CaseResult {
  case: string;
  eventsPerS: number;
  eventsPerCoreS: number;
  cpuS: number;
  load: [number, number];
}

async function runCase(name: string, events: number): Promise<CaseResult> {
  const spec = CASES[name];
  if (!spec) throw new Error(`unknown case ${name}`);
  const batches = Math.ceil(events / BATCH);
  const dir = mkdtempSync(join(tmpdir(), 'kb-bench-names-'));
  const db = openDb({ mode: 'embedded', path: dir });
  try {
    await migrate(db);
    for (const query of spec.sql) await db.client.command({ query });
    const bodies = Array.from({ length: batches }, (_, i) => encodeArrowColumns(columnsOf(i, spec.names)));
    const runId = '00000000-0000-4000-8000-000000000000';
    const spills = spec.wire ? await spillBatches(db, bodies, spec.wire, `${process.pid}`) : [];
    const load0 = loadAverage();
    const cpu0 = cpuSeconds(process.pid);
    const started = performance.now();
    for (let first = 0; spec.wire && first < batches; first += GROUP) {
      const path = join(SPILL, `{${spills.slice(first, first + GROUP).map((f) => basename(f)).join(',')}}`);
      await db.client.command({ query: wireInsert(spec.wire === 'dict' ? 'LowCardinality(String)' : 'String'), query_params: { token: `group-${first}`, run: runId, path } });
    }
    for (let first = 0; !spec.wire && first < batches; first += GROUP) {
      const group = bodies.slice(first, first + GROUP).map((arrow, k) => ({ runId, batchId: `b-${first + k}`, agentId: 'bench', arrow }));
      const token = `group-${first}`;
      await writeLedger(db, group.map((g) => ({ run_id: runId, batch_id: g.batchId, agent_id: 'bench', events: BATCH, content_hash: '', received_at: Date.now(), group_token: token })));
      await insertEventGroup(db, token, group);
    }
    if (spec.rollLevels) {
      for (let level = 1; level <= Math.min(LEVELS, batches); level++) await db.client.command({ query: ROLL_LEVEL, query_params: { run: runId, level } });
    }
    await mergesDone(db);
    const cpuS = cpuSeconds(process.pid) - cpu0;
    const seconds = (performance.now() - started) / 1000;
    if (spec.wire) await checkStored(db, batches * BATCH, spec.names);
    return { case: name, eventsPerS: Math.round((batches * BATCH) / seconds), eventsPerCoreS: Math.round((batches * BATCH) / cpuS), cpuS, load: [load0, loadAverage()] };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    for (const f of readdirSync(SPILL)) if (f.startsWith(`kb-probe-${process.pid}-`)) rmSync(join(SPILL, f), { force: true });
  }
}

if (values.case) {
  console.log(JSON.stringify(await runCase(values.case, Number(values.events))));
} else {
  const cases = values.cases.split(',');
  const results: Array<CaseResult & { round: number }> = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const name of cases) {
      // One process per case: an embedded engine per process, and no merges left over from the last case.
      const out = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--case', name, '--events', values.events, '--rate', values.rate], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`case ${name} failed: ${out.stderr}`);
      const result = JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '') as CaseResult;
      results.push({ ...result, round });
      console.log(`round ${round} ${name}: ${result.eventsPerS} events/s, ${result.eventsPerCoreS} events per core-second, load ${result.load.join('→')}`);
    }
  }
  // Each case against the first case listed (`none` by default) of its own round: a ratio per round, then their median.
  const baseCase = cases[0];
  const rows = cases.map((name) => {
    const ratios = results.filter((r) => r.case === name).map((r) => {
      const base = results.find((b) => b.case === baseCase && b.round === r.round);
      return base ? r.eventsPerCoreS / base.eventsPerCoreS : Number.NaN;
    });
    const mine = results.filter((r) => r.case === name);
    return {
      case: name,
      'events per core-s (median)': quantile(mine.map((r) => r.eventsPerCoreS), 0.5),
      'events/s (median)': quantile(mine.map((r) => r.eventsPerS), 0.5),
      [`÷ ${baseCase} per core-s (median of rounds)`]: quantile(ratios, 0.5),
      [`÷ ${baseCase} per core-s (range)`]: `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
    };
  });
  report(values.report, rows, { events_per_case: Number(values.events), requests_per_s_of_run: RATE, batch_size: BATCH, group: GROUP, names: NAMES.length, rounds: results });
}
