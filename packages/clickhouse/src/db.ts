import { mkdirSync } from 'node:fs';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { StorageConfig } from './config.ts';
import { NO_GATE, SerialQueue, type WriteGate } from './serial-queue.ts';

/** The one handle every query function takes: a client plus the gate writes with settings go through. */
export interface Db {
  readonly client: ClickHouseClient;
  readonly config: StorageConfig;
  /** Embedded: one at a time (see SerialQueue for why). Server: no gate at all. */
  readonly writes: WriteGate;
  close(): Promise<void>;
}

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
    });
  }
  const writes = config.mode === 'embedded' ? new SerialQueue() : NO_GATE;
  return {
    client,
    config,
    writes,
    async close() {
      // Closing chDB while a query runs can abort the engine: let queued writes finish first
      // (the caller has stopped taking requests, so nothing else is in flight).
      await writes.run(async () => undefined);
      await client.close();
    },
  };
}
