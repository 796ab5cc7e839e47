import { mkdirSync } from 'node:fs';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { drainPending } from 'chdb';
import { createChdbConnection } from 'chdb/connection';
import { discoverCluster, nodeClient, type ClusterNode, type ClusterTopology } from './cluster/topology.ts';
import type { StorageConfig } from './config.ts';
import { NO_GATE, SerialQueue, type WriteGate } from './serial-queue.ts';

/** The one handle every query function takes: a client plus the gate writes with settings go through. */
export interface Db {
  readonly client: ClickHouseClient;
  readonly config: StorageConfig;
  /** The data directory this process owns (embedded), or null when a server keeps the data. */
  readonly dataDir: string | null;
  /** Embedded: one at a time (see SerialQueue for why). Server: no gate at all. */
  readonly writes: WriteGate;
  /** On a cluster: its nodes (discovered once); null otherwise. */
  topology(): Promise<ClusterTopology | null>;
  /** On a cluster: a client for one node (kept open until close). */
  nodeClient(node: ClusterNode, database?: string): ClickHouseClient;
  close(): Promise<void>;
}

/**
 * On a cluster, reads go through Distributed tables: a JOIN or IN of two of them ships the right
 * side to the shards once (global), and writes through them return only once stored on the shard.
 */
const CLUSTER_SETTINGS: ClickHouseSettings = { distributed_product_mode: 'global', distributed_foreground_insert: 1 };

/**
 * Settings every insert passes explicitly. In embedded mode settings persist on the session, so an
 * insert that relies on "no token" must say so, or it inherits the previous insert's token and is
 * silently dropped as a duplicate.
 */
export function insertSettings(dedupToken = ''): ClickHouseSettings {
  return { insert_deduplication_token: dedupToken, async_insert: 0 };
}

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

/**
 * chDB implements the Connection interface of @clickhouse/client-common, while @clickhouse/client
 * bundles its own copy of the same interface; their ClickHouseSettings differ in one optional field
 * across patch versions, so TypeScript sees two types. The runtime contract is the same one.
 */
function embeddedConnection(path: string): ClientConnection {
  return createChdbConnection({ path }) as unknown as ClientConnection;
}

export function openDb(config: StorageConfig): Db {
  let client: ClickHouseClient;
  if (config.mode === 'embedded') {
    mkdirSync(config.path, { recursive: true });
    client = createClient({ connection: embeddedConnection(config.path) });
  } else {
    client = createClient({
      url: config.url,
      username: config.username,
      password: config.password,
      database: config.database,
      request_timeout: 60_000,
      clickhouse_settings: config.cluster ? CLUSTER_SETTINGS : {},
    });
  }
  const writes = config.mode === 'embedded' ? new SerialQueue() : NO_GATE;
  let topology: Promise<ClusterTopology | null> | undefined;
  const nodes = new Map<string, ClickHouseClient>();
  return {
    client,
    config,
    dataDir: config.mode === 'embedded' ? config.path : null,
    writes,
    topology() {
      if (config.mode !== 'server' || !config.cluster) return Promise.resolve(null);
      topology ??= discoverCluster(client, config.cluster, new URL(config.url).protocol);
      return topology;
    },
    nodeClient(node, database = config.mode === 'server' ? config.database : undefined) {
      const key = `${node.url}|${database ?? ''}`;
      let c = nodes.get(key);
      if (!c) {
        if (config.mode !== 'server') throw new Error('node clients exist only in server mode');
        c = nodeClient(node, { username: config.username, password: config.password, database });
        nodes.set(key, c);
      }
      return c;
    },
    async close() {
      // Closing chDB while a query runs can abort the engine: let queued writes finish first
      // (the caller has stopped taking requests, so nothing else is in flight).
      await writes.run(async () => undefined);
      await Promise.all([...nodes.values()].map((c) => c.close()));
      await client.close();
      // A read still running (a background job's, a request the server gave up on) keeps chDB's
      // connection, and with it the process's one data directory, until it lands; close() does not
      // wait for it. Wait here, so that a store opened next (another directory) can open.
      if (config.mode === 'embedded') await drainPending();
    },
  };
}
