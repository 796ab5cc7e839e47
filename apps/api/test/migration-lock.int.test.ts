import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { loadMigrations, migrate, openDb, type Db, type Migration } from '@kneeboard/clickhouse';
import { startClickHouseCluster, startClickHouseServer, type ClickHouseCluster, type ClickHouseServer } from '@kneeboard/clickhouse-server';

/** Migrations for these tests: schema ones, then a data-moving one that doubles its rows if it runs twice. */
const migration = (version: number, sql: string): Migration => ({
  file: `${String(version).padStart(3, '0')}_lock_test.sql`,
  version,
  name: 'lock_test',
  sql,
  checksum: createHash('sha256').update(sql).digest('hex'),
});
const MIGRATIONS = [
  migration(1, 'CREATE TABLE IF NOT EXISTS lock_test_numbers (n UInt64) ENGINE = MergeTree ORDER BY n'),
  migration(2, 'CREATE TABLE IF NOT EXISTS lock_test_other (n UInt64) ENGINE = MergeTree ORDER BY n'),
  migration(3, 'INSERT INTO lock_test_numbers SELECT number FROM numbers(1000)'),
];
const VERSIONS = MIGRATIONS.map((m) => m.version);

let server: ClickHouseServer;
let admin: ClickHouseClient;
let databases = 0;
const opened: Db[] = [];

beforeAll(async () => {
  server = await startClickHouseServer();
  admin = createClient({ url: server.url });
});
afterAll(async () => {
  for (const db of opened) await db.close();
  await admin?.close();
  await server?.stop();
});

/** A database of its own per test. */
async function freshDatabase(): Promise<string> {
  const name = `kb_lock_${process.pid}_${++databases}`;
  await admin.command({ query: `CREATE DATABASE ${name}` });
  return name;
}
/** One API process's handle on the database. */
function processOn(database: string): Db {
  const db = openDb({ mode: 'server', url: server.url, username: 'default', password: '', database });
  opened.push(db);
  return db;
}
async function select<T>(query: string): Promise<T[]> {
  return (await (await admin.query({ query, format: 'JSONEachRow' })).json()) as T[];
}
const recorded = async (database: string) => (await select<{ version: number }>(`SELECT version FROM ${database}.kb_schema_migrations ORDER BY version`)).map((r) => Number(r.version));
const numbers = async (database: string) => Number((await select<{ n: string }>(`SELECT count() AS n FROM ${database}.lock_test_numbers`))[0]?.n);
/** Every table the lock ever makes (the lock, and a lock renamed aside to be dropped). */
const lockTables = async (database: string) => (await select<{ name: string }>(`SELECT name FROM system.tables WHERE database = '${database}' AND name LIKE 'kb_migration_lock%'`)).map((r) => r.name);
/** "Another process" holding the lock: the table made by hand, with a heartbeat `ageSeconds` old. */
async function holdLockByHand(database: string, ageSeconds: number): Promise<void> {
  await admin.command({ query: `CREATE TABLE ${database}.kb_migration_lock (at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY tuple() COMMENT 'other-host pid 4242'` });
  await admin.command({ query: `INSERT INTO ${database}.kb_migration_lock SELECT now64(3) - INTERVAL ${ageSeconds} SECOND` });
}
async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never: ${what}`);
}

describe('the migration lock (several API processes on one ClickHouse server)', () => {
  it('stands on CREATE TABLE without IF NOT EXISTS succeeding for exactly one of several callers at once', async () => {
    const database = await freshDatabase();
    const clients = Array.from({ length: 6 }, () => createClient({ url: server.url, database }));
    try {
      const outcomes = await Promise.allSettled(clients.map((c) => c.command({ query: 'CREATE TABLE race (x UInt8) ENGINE = MergeTree ORDER BY tuple()' })));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: string }).code] : []))).toEqual(Array(5).fill('57'));
    } finally {
      for (const c of clients) await c.close();
    }
  });

  it('lets two processes that start at once apply each migration once: the data-moving one stores its rows once', async () => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([migrate(processOn(database), MIGRATIONS), migrate(processOn(database), MIGRATIONS)]);
    // Without the lock both run every migration: 2000 rows.
    expect(await numbers(database)).toBe(1000);
    // Between them every migration ran exactly once; the one that waited found them applied.
    expect([...a, ...b].map((m) => m.version).sort()).toEqual(VERSIONS);
    expect(await recorded(database)).toEqual(VERSIONS);
    expect(await lockTables(database)).toEqual([]);
  });

  it('makes a process wait while another holds the lock, and proceed once it is released', async () => {
    const database = await freshDatabase();
    await holdLockByHand(database, 0);
    const log: string[] = [];
    let settled = false;
    const waiting = migrate(processOn(database), MIGRATIONS, { lock: { pollMs: 50, log: (line) => log.push(line) } }).finally(() => (settled = true));
    await until('it waits', () => log.length > 0);
    expect(log).toEqual(["waiting for another process's migrations: kb_migration_lock is held by other-host pid 4242"]);
    expect(settled).toBe(false);
    expect(await recorded(database)).toEqual([]);
    await admin.command({ query: `DROP TABLE ${database}.kb_migration_lock` });
    expect((await waiting).map((m) => m.version)).toEqual(VERSIONS);
    expect(await numbers(database)).toBe(1000);
    expect(log).toHaveLength(1);
    expect(await lockTables(database)).toEqual([]);
  });

  it('keeps its lock fresh with heartbeats while a long migration runs', async () => {
    const database = await freshDatabase();
    // About 3 s of work; the holder beats every 50 ms.
    const slow = [...MIGRATIONS, migration(4, 'SELECT sleepEachRow(0.5) FROM numbers(6) SETTINGS max_block_size = 1')];
    let done = false;
    const holding = migrate(processOn(database), slow, { lock: { heartbeatMs: 50 } }).finally(() => (done = true));
    let beats = 0;
    await until('two heartbeats, or the end', async () => {
      const [row] = await select<{ n: string }>(`SELECT count() AS n FROM system.tables WHERE database = '${database}' AND name = 'kb_migration_lock'`);
      if (Number(row?.n) === 1) beats = Math.max(beats, Number((await select<{ n: string }>(`SELECT count() AS n FROM ${database}.kb_migration_lock`).catch(() => [{ n: '0' }]))[0]?.n));
      return beats >= 2 || done;
    });
    expect((await holding).map((m) => m.version)).toEqual([...VERSIONS, 4]);
    expect(beats).toBeGreaterThanOrEqual(2);
    expect(await lockTables(database)).toEqual([]);
  });

  it('breaks a stale lock (a holder that crashed) with a log line, then migrates', async () => {
    const database = await freshDatabase();
    await holdLockByHand(database, 600);
    const log: string[] = [];
    const ran = await migrate(processOn(database), MIGRATIONS, { lock: { staleMs: 500, pollMs: 50, log: (line) => log.push(line) } });
    expect(ran.map((m) => m.version)).toEqual(VERSIONS);
    expect(log.some((line) => line.startsWith('breaking a stale migration lock: kb_migration_lock held by other-host pid 4242, no heartbeat for'))).toBe(true);
    expect(await numbers(database)).toBe(1000);
    expect(await lockTables(database)).toEqual([]);
  });

  it('gives up waiting after its timeout, saying how to remove the lock by hand, and leaves that lock alone', async () => {
    const database = await freshDatabase();
    await holdLockByHand(database, 0);
    await expect(migrate(processOn(database), MIGRATIONS, { lock: { timeoutMs: 300, pollMs: 50, log: () => undefined } })).rejects.toThrow(
      /waiting for the migration lock kb_migration_lock \(held by other-host pid 4242\); if no process is migrating this database, remove it by hand: DROP TABLE kb_migration_lock/,
    );
    expect(await lockTables(database)).toEqual(['kb_migration_lock']);
    expect(await recorded(database)).toEqual([]);
  });

  it('drops the lock when a migration throws, so the next start is not kept waiting', async () => {
    const database = await freshDatabase();
    const broken = [...MIGRATIONS.slice(0, 2), migration(3, 'INSERT INTO lock_test_no_such_table SELECT 1')];
    await expect(migrate(processOn(database), broken)).rejects.toThrow(/lock_test_no_such_table/);
    expect(await lockTables(database)).toEqual([]);
    expect(await recorded(database)).toEqual([1, 2]);
    // The fixed migration applies at once, by another process, without a wait.
    const log: string[] = [];
    expect((await migrate(processOn(database), MIGRATIONS, { lock: { log: (line) => log.push(line) } })).map((m) => m.version)).toEqual([3]);
    expect(log).toEqual([]);
    expect(await numbers(database)).toBe(1000);
  });
});

describe('the migration lock on a cluster without Keeper (each node records its migrations)', () => {
  let cluster: ClickHouseCluster;
  const clients: ClickHouseClient[] = [];
  beforeAll(async () => {
    cluster = await startClickHouseCluster({ shards: 2, name: 'kb_lock' });
    clients.push(...cluster.nodes.map((node) => createClient({ url: node.url })));
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await cluster?.stop();
  });
  const recordedOn = async (client: ClickHouseClient, database: string) =>
    ((await (await client.query({ query: `SELECT version FROM ${database}.kb_schema_migrations ORDER BY version`, format: 'JSONEachRow' })).json()) as Array<{ version: number }>).map((r) => Number(r.version));

  const tablesOn = async (client: ClickHouseClient, database: string, like: string) =>
    Number(((await (await client.query({ query: `SELECT count() AS n FROM system.tables WHERE database = '${database}' AND name LIKE '${like}'`, format: 'JSONEachRow' })).json()) as Array<{ n: string }>)[0]?.n);

  it('is taken on the first node: a process waits while another holds it there, then migrates every node once', async () => {
    const database = `kb_lock_cluster_${process.pid}`;
    const [first] = clients as [ClickHouseClient];
    await first.command({ query: `CREATE DATABASE ${database}` });
    await first.command({ query: `CREATE TABLE ${database}.kb_migration_lock (at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY tuple() COMMENT 'other-host pid 4242'` });
    const onCluster = () => openDb({ mode: 'server', url: cluster.nodes[0]!.url, username: 'default', password: '', database, cluster: cluster.name });
    const [a, b] = [onCluster(), onCluster()];
    opened.push(a, b);
    // The first two real migrations (a cluster renders only the tables it knows): kb_runs_v1, kb_steps_v1.
    const schema = loadMigrations().filter((m) => m.version <= 2);
    const log: string[] = [];
    const waiting = Promise.all([migrate(a, schema, { lock: { pollMs: 50, log: (line) => log.push(line) } }), migrate(b, schema, { lock: { pollMs: 50, log: (line) => log.push(line) } })]);
    await until('both wait', () => log.length >= 2);
    expect(log).toEqual(Array(2).fill("waiting for another process's migrations: kb_migration_lock is held by other-host pid 4242"));
    for (const c of clients) expect(await tablesOn(c, database, 'kb_%_v1%')).toBe(0);
    await first.command({ query: `DROP TABLE ${database}.kb_migration_lock` });
    const [ranA, ranB] = await waiting;
    expect([...ranA, ...ranB].map((m) => m.version).sort()).toEqual([1, 2]);
    for (const c of clients) expect(await recordedOn(c, database)).toEqual([1, 2]);
    for (const c of clients) expect(await tablesOn(c, database, 'kb_runs_v1%')).toBeGreaterThan(0);
    for (const c of clients) expect(await tablesOn(c, database, 'kb_migration_lock%')).toBe(0);
  });
});
