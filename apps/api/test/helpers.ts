import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { migrate, openDb, type Db, type StorageConfig } from '@kneeboard/clickhouse';
import { startClickHouseServer, type ClickHouseCluster, type ClickHouseServer } from '@kneeboard/clickhouse-server';
import { TokenAdmin } from '../src/access/token-admin.ts';
import { TokenStore } from '../src/access/token-store.ts';
import { buildApp, type AppOptions, type KneeboardApp } from '../src/app.ts';

export { prng } from '@kneeboard/analysis/testing';
export { batchOf, createRun, postJson, storeSyntheticRun } from '../testing/index.ts';

/** Where a test's data lives: the embedded engine, or a real ClickHouse server on loopback. */
export type StorageMode = 'embedded' | 'server';
export const STORAGE_MODES: readonly StorageMode[] = ['embedded', 'server'];

export interface TestApi {
  app: KneeboardApp;
  db: Db;
  url: string;
  dataDir: string;
  /** The storage the API was given, e.g. to start a second API process on the same data. */
  storage: StorageConfig;
  close(): Promise<void>;
}

export interface TestApiOptions {
  mode?: StorageMode;
  /** A running server to use (server mode): each API gets its own database on it. */
  server?: ClickHouseServer;
  /** A running cluster (CLICKHOUSE_CLUSTER): the API talks to its first node; each API gets its own database. */
  cluster?: ClickHouseCluster;
  ingest?: AppOptions['ingest'];
  corsOrigins?: AppOptions['corsOrigins'];
  /** Tokens required or not (open by default, as on loopback); its adminToken is stored as at start-up. */
  access?: AppOptions['access'];
  /** Caps and timeouts, small in tests so a handful of requests reach them. */
  limits?: AppOptions['limits'];
  /** An embedded data directory to use (e.g. on a small tmpfs); a fresh temporary one otherwise. */
  dataDir?: string;
  /** Webhook retries and settle time, short in tests. */
  webhooks?: AppOptions['webhooks'];
}

let databases = 0;

/** A fresh database on the server, so tests sharing one server do not see each other's runs. */
async function freshDatabase(server: ClickHouseServer): Promise<string> {
  const name = `kb_test_${process.pid}_${++databases}`;
  const admin = createClient({ url: server.url });
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${name}` });
  } finally {
    await admin.close();
  }
  return name;
}

/**
 * The real API listening on 127.0.0.1 over real ClickHouse: the embedded engine in a fresh data
 * directory (default), or a server — the one given, or one started for this API and stopped with it.
 */
export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kb-api-test-'));
  const ownServer = options.mode === 'server' && !options.server ? await startClickHouseServer() : undefined;
  const server = options.cluster?.nodes[0] ?? options.server ?? ownServer;
  const storage: StorageConfig = server
    ? { mode: 'server', url: server.url, username: 'default', password: '', database: await freshDatabase(server), cluster: options.cluster?.name }
    : { mode: 'embedded', path: dataDir };
  const db = openDb(storage);
  await migrate(db);
  const app = await buildApp({ db, ingest: options.ingest, corsOrigins: options.corsOrigins, access: options.access, limits: options.limits, webhooks: options.webhooks });
  if (options.access?.mode === 'required') await new TokenAdmin(db, new TokenStore(db)).bootstrap(options.access.adminToken);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    db,
    url,
    dataDir,
    storage,
    async close() {
      await app.close();
      await db.close();
      await ownServer?.stop();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Percentile by linear interpolation between order statistics (numpy's default, R type 7). */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const xs = [...values].sort((a, b) => a - b);
  const h = (xs.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, xs.length - 1);
  return (xs[lo] as number) + (h - lo) * ((xs[hi] as number) - (xs[lo] as number));
}
