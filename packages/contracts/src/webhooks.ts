import { z } from 'zod';
import { EpochMs, RunId } from './common.ts';
import { NONBLANK_LINE, plainLine } from './text.ts';

/**
 * A service's webhooks: told when a finished run of the service regresses against the release
 * before it, or lands a change point in the service's history. `json` posts the notification as it
 * is (for a CI or a chat bot of one's own); `slack` posts a Slack-compatible `{ text, blocks }` body,
 * which Slack, Mattermost and Rocket.Chat incoming webhooks take.
 */
export const WebhookFormat = z.enum(['json', 'slack']);
export type WebhookFormat = z.infer<typeof WebhookFormat>;

/** What a webhook is told of. */
export const WebhookEvent = z.enum(['regression', 'change_point']);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const WebhookId = z.string().regex(/^wh_[a-z0-9]{16}$/, 'must be a webhook id as listed by the service');

/** http(s) only, no credentials in it, at most 2,000 characters. */
export const WebhookUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2000)
  .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), { message: 'must not carry a user or password (use the secret for signing)' });

export const CreateWebhookBody = z.object({
  url: WebhookUrl,
  format: WebhookFormat.default('json'),
  events: z.array(WebhookEvent).min(1).max(2).default(['regression', 'change_point']),
  /** A regression is told of when a figure got worse by more than this many percent (its interval clear of 0). */
  threshold_pct: z.number().min(0).max(1000).default(5),
  /** Signs each body: `X-Kneeboard-Signature: sha256=<HMAC-SHA256(secret, body) in hex>`. Never shown back. */
  secret: z.string().min(16).max(200).optional(),
  description: z.string().max(200).trim().min(1).superRefine(plainLine).meta(NONBLANK_LINE).optional(),
});
export type CreateWebhookBody = z.input<typeof CreateWebhookBody>;

/** A webhook as listed: the URL with its path hidden (a Slack URL's path is its secret), never the secret. */
export const WebhookInfo = z.object({
  id: WebhookId,
  service: z.string(),
  /** Scheme, host and port, then `/…` when there is a path: the path can be a credential. */
  url: z.string(),
  format: WebhookFormat,
  events: z.array(WebhookEvent),
  threshold_pct: z.number(),
  signed: z.boolean(),
  description: z.string().nullable(),
  created_at: EpochMs,
});
export type WebhookInfo = z.infer<typeof WebhookInfo>;

export const ListWebhooksResponse = z.object({ webhooks: z.array(WebhookInfo) });
export type ListWebhooksResponse = z.infer<typeof ListWebhooksResponse>;

/** One attempt to deliver one notification. */
export const WebhookDelivery = z.object({
  delivery_id: z.string(),
  webhook_id: WebhookId,
  event: z.enum(['regression', 'change_point', 'test']),
  run_id: RunId.nullable(),
  attempt: z.number().int().positive(),
  at: EpochMs,
  /** The receiver's HTTP status; null when no answer came (refused, timed out). */
  status: z.number().int().nullable(),
  ok: z.boolean(),
  /** Why it failed, in a line; null on success. */
  error: z.string().nullable(),
  duration_ms: z.number().nonnegative(),
  /** The one-line summary that was sent. */
  summary: z.string(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListDeliveriesResponse = z.object({ deliveries: z.array(WebhookDelivery) });
export type ListDeliveriesResponse = z.infer<typeof ListDeliveriesResponse>;

/** What a webhook receives (the `json` format's body; the `slack` body is built from it). */
export const WebhookNotification = z.object({
  event: z.enum(['regression', 'change_point', 'test']),
  service: z.string(),
  release: z.string().nullable(),
  run_id: RunId.nullable(),
  /** The sentence a reader acts on ("Regression in max throughput: −12% [−15% … −9%] against 1.4.0"). */
  summary: z.string(),
  /** The figures behind it: name → change in percent with its interval. */
  figures: z.array(z.object({ name: z.string(), change_pct: z.number(), low_pct: z.number().nullable(), high_pct: z.number().nullable() })),
  /** The permalink to open: the comparison across the change, or the run. */
  url: z.string(),
  sent_at: EpochMs,
});
export type WebhookNotification = z.infer<typeof WebhookNotification>;
