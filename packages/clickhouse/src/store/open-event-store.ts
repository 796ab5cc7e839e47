import type { Db } from '../db.ts';
import { EmbeddedEventStore } from './embedded-store.ts';
import type { EventStore } from './event-store.ts';
import { ServerEventStore, type ServerStoreOptions } from './server-store.ts';

export type EventStoreOptions = Partial<ServerStoreOptions>;

/**
 * The store for the database: the one place that asks which engine it is. Everything after —
 * the write path, live views, deletions — sees only the EventStore.
 */
export function openEventStore(db: Db, options: EventStoreOptions = {}): EventStore {
  if (db.config.mode === 'embedded') return new EmbeddedEventStore(db, { ...(options.maxRuns !== undefined ? { maxRuns: options.maxRuns } : {}) });
  return new ServerEventStore(db, { onLedgerError: (err) => console.error('batch ledger write failed; retrying', err), ...options });
}
