/**
 * Which codec for each raw-event column: the same values stored under several codecs side by side
 * in one table (one column per candidate, the raw table's sort order), merged to one part, and the
 * compressed bytes per event of each column read from system.parts_columns. Two data sets:
 * `bench` — the scale benches' generator (evenly spaced completions, lognormal latencies) — and
 * `jittered` — completions with exponential gaps from two agents, three names, 1% errors, compute
 * and queue missing on 10%, the shape real agents send. Values are integer microseconds, as stored.
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/raw-codecs.bench.ts [--rows 4000000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDb } from '@kneeboard/clickhouse';
import { report } from './lib/report.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '4000000' } } });
const n = Number(values.rows);

/** Candidate columns: name → type and codec. The first word of the name is the value it holds. */
const CANDIDATES: Array<[string, string]> = [
  ['ts_lz4', 'Int64'],
  ['ts_zstd', 'Int64 CODEC(ZSTD(1))'],
  ['ts_delta_zstd', 'Int64 CODEC(Delta, ZSTD(1))'],
  ['ts_doubledelta', 'Int64 CODEC(DoubleDelta)'],
  ['ts_doubledelta_zstd', 'Int64 CODEC(DoubleDelta, ZSTD(1))'],
  ['ts_float64_ms_lz4', 'Float64'],
  ['latency_lz4', 'UInt32'],
  ['latency_zstd', 'UInt32 CODEC(ZSTD(1))'],
  ['latency_t64', 'UInt32 CODEC(T64)'],
  ['latency_t64_zstd', 'UInt32 CODEC(T64, ZSTD(1))'],
  ['latency_u64_t64_zstd', 'UInt64 CODEC(T64, ZSTD(1))'],
  ['latency_float64_ms_lz4', 'Float64'],
  ['compute_nullable_t64_zstd', 'Nullable(UInt64) CODEC(T64, ZSTD(1))'],
  ['compute_sentinel_t64_zstd', 'UInt64 CODEC(T64, ZSTD(1))'],
  ['compute_nullable_zstd', 'Nullable(UInt64) CODEC(ZSTD(1))'],
  ['status_lz4', 'UInt16'],
  ['status_zstd', 'UInt16 CODEC(ZSTD(1))'],
  ['status_t64_zstd', 'UInt16 CODEC(T64, ZSTD(1))'],
  ['level_lz4', 'Float64'],
  ['level_zstd', 'Float64 CODEC(ZSTD(1))'],
  ['level_delta_zstd', 'Float64 CODEC(Delta, ZSTD(1))'],
  ['run_lz4', 'UUID'],
  ['run_zstd', 'UUID CODEC(ZSTD(1))'],
  ['name_lc_lz4', 'LowCardinality(String)'],
  ['name_lc_zstd', 'LowCardinality(String) CODEC(ZSTD(1))'],
  ['agent_lc_lz4', 'LowCardinality(String)'],
  ['agent_lc_zstd', 'LowCardinality(String) CODEC(ZSTD(1))'],
];

/** Each data set's columns as expressions over `number` (one run, 10 levels, sorted as stored). */
const DATA: Record<string, { ts: string; lat: string; compute: string; status: string; name: string; agent: string }> = {
  bench: {
    ts: '1800000000000000 + level_i * 33000000 + intDiv(i * 32000000, per)',
    lat: 'toUInt32(round(1000 * 5 * greatest(1, pow(2, level_i) / 8) * exp(0.4 * sqrt(-2 * log((cityHash64(number, 1) % 1000003 + 1) / 1000004)) * cos(2 * pi() * (cityHash64(number, 2) % 1000003) / 1000003))))',
    compute: 'if(i % 10 = 0, NULL, toUInt64(lat * 0.2))',
    status: 'if(i % 200 = 0, 503, 200)',
    name: "''",
    agent: "'bench'",
  },
  jittered: {
    // Exponential gaps with the bench's mean, cumulated per level: sorted, as the table keeps them.
    ts: '1800000000000000 + level_i * 33000000 + toInt64(sum(-3.2 * log((cityHash64(number, 3) % 1000003 + 1) / 1000004)) OVER (PARTITION BY level_i ORDER BY number))',
    lat: 'toUInt32(round(1000 * 5 * greatest(1, pow(2, level_i) / 8) * exp(0.4 * sqrt(-2 * log((cityHash64(number, 1) % 1000003 + 1) / 1000004)) * cos(2 * pi() * (cityHash64(number, 2) % 1000003) / 1000003))))',
    compute: 'if(cityHash64(number, 4) % 10 = 0, NULL, toUInt64(lat * 0.7))',
    status: "multiIf(cityHash64(number, 5) % 100 = 0, 503, cityHash64(number, 5) % 100 = 1, 0, 200)",
    name: "['search', 'cart', 'checkout'][cityHash64(number, 6) % 3 + 1]",
    agent: "['agent-a', 'agent-b'][cityHash64(number, 7) % 2 + 1]",
  },
};

const dir = mkdtempSync(join(tmpdir(), 'kb-bench-codecs-'));
const rows: Array<Record<string, string | number>> = [];
const load = () => loadavg()[0]?.toFixed(1) ?? '?';
const loadBefore = load();
try {
  const db = openDb({ mode: 'embedded', path: dir });
  for (const [set, d] of Object.entries(DATA)) {
    const table = `codecs_${set}`;
    await db.client.command({
      query: `CREATE TABLE ${table} (run_id UUID, level Float64, ts_us Int64, ${CANDIDATES.map(([c, t]) => `${c} ${t}`).join(', ')})
              ENGINE = MergeTree ORDER BY (run_id, level, ts_us)`,
    });
    const per = Math.floor(n / 10);
    await db.client.command({
      query: `INSERT INTO ${table}
        SELECT run, level, ts, ${CANDIDATES.map(([c]) => {
          const v = c.split('_')[0];
          if (c.includes('float64_ms')) return v === 'ts' ? 'ts / 1000' : 'lat / 1000';
          if (v === 'ts') return 'ts';
          if (v === 'latency') return 'lat';
          if (v === 'compute') return c.includes('sentinel') ? 'ifNull(compute, 18446744073709551615)' : 'compute';
          if (v === 'status') return 'status';
          if (v === 'level') return 'level';
          if (v === 'run') return 'run';
          if (v === 'name') return 'name';
          return 'agent';
        }).join(', ')}
        FROM (SELECT toUUID('00000000-0000-4000-8000-000000000001') AS run, pow(2, level_i) AS level, ${d.ts} AS ts, lat,
                     ${d.compute} AS compute, ${d.status} AS status, ${d.name} AS name, ${d.agent} AS agent
              FROM (SELECT number, intDiv(number, ${per}) AS level_i, number % ${per} AS i, ${per} AS per, ${d.lat} AS lat
                    FROM numbers(${per * 10})))
        SETTINGS max_threads = 1`,
    });
    await db.client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    const cols = await (
      await db.client.query({
        query: `SELECT column, sum(column_data_compressed_bytes) AS bytes, sum(rows) AS rows FROM system.parts_columns
                WHERE active AND database = currentDatabase() AND table = {table:String} GROUP BY column`,
        query_params: { table },
        format: 'JSONEachRow',
      })
    ).json<{ column: string; bytes: string; rows: string }>();
    for (const [c, type] of CANDIDATES) {
      const col = cols.find((x) => x.column === c);
      rows.push({ data: set, column: c, type, 'B/event': Number(col?.bytes ?? 0) / Number(col?.rows ?? 1) });
    }
  }
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
report('raw-codecs', rows, { rows: n, load: `${loadBefore} → ${load()}` });
