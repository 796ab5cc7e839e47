import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ClickHouseClient } from '@clickhouse/client';
import { renderForCluster, type RenderedStatement } from './cluster/render.ts';
import type { ClusterTopology } from './cluster/topology.ts';
import { insertSettings, type Db } from './db.ts';
import { withMigrationLock, type MigrationLockOptions } from './migration-lock.ts';
import { splitStatements } from './statements.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));
const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  file: string;
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => FILE_NAME.test(f))
    .sort()
    .map((file) => {
      const [, version, name] = FILE_NAME.exec(file) as RegExpExecArray;
      const sql = readFileSync(`${dir}/${file}`, 'utf8');
      return { file, version: Number(version), name: name as string, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const AppliedRow = z.object({ version: z.coerce.number(), checksum: z.string() });

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS kb_schema_migrations
            (version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC'))
            ENGINE = MergeTree ORDER BY version`;

/** Where a migration's statements run, and how each is sent. */
interface Target {
  /** The node whose kb_schema_migrations records what ran. */
  client: ClickHouseClient;
  statements(m: Migration): RenderedStatement[];
  run(statement: RenderedStatement): Promise<void>;
}

async function appliedOn(client: ClickHouseClient): Promise<Map<number, string>> {
  const result = await client.query({ query: 'SELECT version, checksum FROM kb_schema_migrations', format: 'JSONEachRow' });
  return new Map(z.array(AppliedRow).parse(await result.json()).map((r) => [r.version, r.checksum]));
}

async function apply(db: Db, target: Target, migrations: Migration[]): Promise<Migration[]> {
  const applied = await appliedOn(target.client);
  const ran: Migration[] = [];
  for (const m of migrations) {
    const known = applied.get(m.version);
    if (known !== undefined) {
      if (known !== m.checksum) throw new Error(`migration ${m.file} was changed after it was applied; add a new migration instead`);
      continue;
    }
    for (const statement of target.statements(m)) await target.run(statement);
    await db.writes.run(() =>
      target.client.insert({
        table: 'kb_schema_migrations',
        values: [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: Date.now() }],
        format: 'JSONEachRow',
        clickhouse_settings: insertSettings(),
      }),
    );
    ran.push(m);
  }
  return ran;
}

/**
 * A cluster without Keeper: every node gets the rendered DDL itself, in order, and keeps its own
 * record of what ran (so a node added later catches up); data statements run on each shard's node.
 * With Keeper: DDL once with ON CLUSTER, data statements on the first replica of each shard.
 */
async function migrateCluster(db: Db, topo: ClusterTopology, migrations: Migration[], lock: MigrationLockOptions): Promise<Migration[]> {
  if (db.config.mode !== 'server') throw new Error('a cluster needs server mode');
  const database = db.config.database;
  const shape = { cluster: topo.name, replicated: topo.keeper };
  const firstReplicas = topo.nodes.filter((n) => n.replica === Math.min(...topo.nodes.filter((x) => x.shard === n.shard).map((x) => x.replica)));
  if (!topo.keeper) {
    const replicated = topo.shards.filter((s) => topo.nodes.filter((n) => n.shard === s).length > 1);
    if (replicated.length > 0) throw new Error(`cluster ${topo.name}: shard ${replicated[0]} has several replicas but the cluster has no Keeper to replicate them`);
  }
  for (const node of topo.nodes) await db.nodeClient(node, 'system').command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  const sendTo = async (client: ClickHouseClient, sql: string) => {
    await client.command({ query: sql });
  };
  if (topo.keeper) {
    await sendTo(db.client, MIGRATIONS_TABLE);
    // Locked on the node that records what ran (no ON CLUSTER for the lock table).
    return withMigrationLock(db.client, () => apply(db, {
      client: db.client,
      statements: (m) => renderForCluster(m.sql, shape),
      run: async (s) => {
        if (s.on === 'every-node') await sendTo(db.client, s.sql);
        else for (const node of firstReplicas) await sendTo(db.nodeClient(node), s.sql);
      },
    }, migrations), lock);
  }
  // Every node records its own migrations: one lock, on the first node (every process lists the
  // cluster's nodes in the same order), covers them all.
  const [first] = topo.nodes;
  if (!first) throw new Error(`cluster ${topo.name} has no nodes`);
  return withMigrationLock(db.nodeClient(first), async () => {
    let ran: Migration[] = [];
    for (const node of topo.nodes) {
      const client = db.nodeClient(node);
      await sendTo(client, MIGRATIONS_TABLE);
      // One replica per shard here (checked above), so each node is its shard's only copy.
      ran = await apply(db, { client, statements: (m) => renderForCluster(m.sql, shape), run: (s) => sendTo(client, s.sql) }, migrations);
    }
    return ran;
  }, lock);
}

export interface MigrateOptions {
  /** The lock that keeps two processes from migrating one server or cluster at once (see migration-lock.ts). */
  lock?: MigrationLockOptions;
}

/**
 * Applies pending migrations in order and records each in kb_schema_migrations.
 * A recorded migration whose file has changed is an error: migrations are append-only.
 * On a cluster (CLICKHOUSE_CLUSTER) the same files are rendered into local + Distributed tables.
 * On a server or cluster, one process at a time (kb_migration_lock); the others wait, then find
 * the migrations applied. The embedded store belongs to one process and takes no lock, so a
 * crash never leaves it waiting.
 */
export async function migrate(db: Db, migrations = loadMigrations(), options: MigrateOptions = {}): Promise<Migration[]> {
  const topo = await db.topology();
  if (topo) return migrateCluster(db, topo, migrations, options.lock ?? {});
  await db.client.command({ query: MIGRATIONS_TABLE });
  const run = () =>
    apply(db, { client: db.client, statements: (m) => splitStatements(m.sql).map((sql) => ({ sql, on: 'every-node' as const })), run: async (s) => void (await db.client.command({ query: s.sql })) }, migrations);
  return db.config.mode === 'server' ? withMigrationLock(db.client, run, options.lock) : run();
}
