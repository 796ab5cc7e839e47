import { z } from 'zod';
import { WebhookDelivery, WebhookEvent, WebhookFormat } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';

/** A webhook as stored: with its full URL and secret, which only the API's sender reads. */
export const WebhookRow = z.object({
  id: z.string(),
  service: z.string(),
  url: z.string(),
  format: WebhookFormat,
  events: z.array(WebhookEvent),
  threshold_pct: z.number(),
  /** '' = unsigned. */
  secret: z.string(),
  /** '' = none. */
  description: z.string(),
  created_at: z.coerce.number(),
  deleted_at: z.coerce.number().nullable(),
});
export type WebhookRow = z.infer<typeof WebhookRow>;

const COLUMNS = `id, service, url, format, events, threshold_pct, secret, description,
  toUnixTimestamp64Milli(created_at) AS created_at,
  if(deleted_at IS NULL, NULL, toUnixTimestamp64Milli(assumeNotNull(deleted_at))) AS deleted_at`;

/** A service's webhooks that are not removed, oldest first. */
export async function listWebhooks(db: Db, service: string): Promise<WebhookRow[]> {
  const result = await db.client.query({
    query: `SELECT ${COLUMNS} FROM kb_webhooks_v1 FINAL WHERE service = {service:String} AND deleted_at IS NULL ORDER BY created_at, id`,
    query_params: { service },
    format: 'JSONEachRow',
  });
  return z.array(WebhookRow).parse(await result.json());
}

/** Writes a webhook row; a newer write of the same id replaces it (a removal). */
export async function writeWebhook(db: Db, row: WebhookRow): Promise<void> {
  await db.writes.run(() => db.client.insert({ table: 'kb_webhooks_v1', values: [row], format: 'JSONEachRow', clickhouse_settings: insertSettings() }));
}

const DeliveryRow = WebhookDelivery.extend({ at: z.coerce.number(), ok: z.coerce.boolean() });

export async function insertDelivery(db: Db, delivery: WebhookDelivery): Promise<void> {
  await db.writes.run(() => db.client.insert({ table: 'kb_webhook_deliveries_v1', values: [delivery], format: 'JSONEachRow', clickhouse_settings: insertSettings() }));
}

/** A webhook's newest delivery attempts, newest first. */
export async function listDeliveries(db: Db, webhookId: string, limit = 100): Promise<WebhookDelivery[]> {
  const result = await db.client.query({
    query: `SELECT webhook_id, delivery_id, event, run_id, attempt, toUnixTimestamp64Milli(at) AS at, status, ok, error, duration_ms, summary
      FROM kb_webhook_deliveries_v1 WHERE webhook_id = {webhook:String} ORDER BY at DESC, attempt DESC LIMIT {limit:UInt32}`,
    query_params: { webhook: webhookId, limit },
    format: 'JSONEachRow',
  });
  return z.array(DeliveryRow).parse(await result.json());
}

/** Which of these runs a webhook was already told of for an event (any attempt): a finish is notified once. */
export async function notifiedRuns(db: Db, webhookId: string, event: string, runIds: readonly string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const result = await db.client.query({
    // The alias is not run_id: ClickHouse would read the WHERE's run_id as the string.
    query: `SELECT DISTINCT toString(run_id) AS notified FROM kb_webhook_deliveries_v1
      WHERE webhook_id = {webhook:String} AND event = {event:String} AND run_id IN {runs:Array(UUID)}`,
    query_params: { webhook: webhookId, event, runs: runIds },
    format: 'JSONEachRow',
  });
  return new Set(z.array(z.object({ notified: z.string() })).parse(await result.json()).map((r) => r.notified));
}
