import type { Db } from '@kneeboard/clickhouse';
import type { LiveHub } from './live/live-hub.ts';

/** What route plugins need, passed in explicitly rather than reached through globals. */
export interface RouteDeps {
  db: Db;
  hub: LiveHub;
}
