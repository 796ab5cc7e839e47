import { createClient } from '@clickhouse/client';

/** ClickHouse server CPU of one kind of statement in a time window, from system.query_log. */
export interface StatementCpu {
  statements: number;
  cpuSeconds: number;
}

const toDateTime64 = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');

/**
 * What the server spent on the inserts into each table between `from` and `to` (the server must
 * keep a query log: `startClickHouseServer({ queryLog: true })`). Where the time of an ingest goes,
 * per statement, rather than one figure for the whole process.
 */
export async function insertCpuByTable(url: string, from: Date, to: Date): Promise<Map<string, StatementCpu>> {
  const ch = createClient({ url });
  try {
    await ch.command({ query: 'SYSTEM FLUSH LOGS' });
    const result = await ch.query({
      query: `SELECT extract(query, 'INSERT INTO (\\\\w+)') AS table, count() AS statements,
                     sum(ProfileEvents['UserTimeMicroseconds'] + ProfileEvents['SystemTimeMicroseconds']) / 1e6 AS cpu_seconds
              FROM system.query_log
              WHERE type = 'QueryFinish' AND query_kind = 'Insert'
                AND event_time_microseconds >= {from:DateTime64(6)} AND event_time_microseconds < {to:DateTime64(6)}
              GROUP BY table`,
      query_params: { from: toDateTime64(from), to: toDateTime64(to) },
      format: 'JSONEachRow',
    });
    const rows = (await result.json()) as Array<{ table: string; statements: string; cpu_seconds: number }>;
    return new Map(rows.map((r) => [r.table, { statements: Number(r.statements), cpuSeconds: r.cpu_seconds }]));
  } finally {
    await ch.close();
  }
}
