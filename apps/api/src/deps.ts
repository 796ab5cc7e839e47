import type { Db } from '@kneeboard/clickhouse';
import type { IngestService } from './ingest/ingest-service.ts';
import type { LiveHub } from './live/live-hub.ts';

/** What route plugins need, passed in explicitly rather than reached through globals. */
export interface RouteDeps {
  db: Db;
  hub: LiveHub;
  /** The write path: run state, lifecycle rules, batch checks, exactly-once storage. */
  ingest: IngestService;
}
