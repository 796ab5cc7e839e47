import type { Db } from '@kneeboard/clickhouse';
import type { TokenAdmin } from './access/token-admin.ts';
import type { IngestService } from './ingest/ingest-service.ts';
import type { LiveHub } from './live/live-hub.ts';
import type { StreamSlots } from './live/stream-slots.ts';
import type { Limits } from './plugins/limits.ts';
import type { CompareGuard } from './services/compare-guard.ts';
import type { RunNotifier } from './services/webhooks/run-notifier.ts';
import type { WebhookSender } from './services/webhooks/webhook-sender.ts';

/** What route plugins need, passed in explicitly rather than reached through globals. */
export interface RouteDeps {
  db: Db;
  hub: LiveHub;
  /** The write path: run state, lifecycle rules, batch checks, exactly-once storage. */
  ingest: IngestService;
  /** Creating, listing and revoking API tokens. */
  tokens: TokenAdmin;
  limits: Limits;
  /** Every comparison: caps, queue, cache. */
  comparisons: CompareGuard;
  /** Open live streams, per client and in all. */
  liveSlots: StreamSlots;
  /** Webhooks: the sender (and its delivery log), the judge of finished runs, the web app's address for permalinks. */
  webhooks: { sender: WebhookSender; notifier: RunNotifier; webUrl: string };
  /** Bytes of request bodies being read right now (the body budget's use). */
  bodies: { readonly inFlight: number };
}
