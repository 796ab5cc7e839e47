import { ApiError } from '../errors.ts';
import { CreateWebhookBody, ListDeliveriesResponse, ListWebhooksResponse, WebhookDelivery, WebhookId, WebhookInfo } from '../webhooks.ts';
import { ServiceParams } from './catalog.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';

const WebhookParams = ServiceParams.extend({ webhook: WebhookId });

/** A service's webhooks: managed with write (or admin) tokens, a service-limited token for its own service only. */
export const webhookEndpoints = {
  listWebhooks: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/services/:service/webhooks`,
    scope: 'write',
    service: 'path',
    summary: "A service's webhooks (URLs with their path hidden, never the secret)",
    tags: ['webhooks'],
    params: ServiceParams,
    responses: { 200: ListWebhooksResponse, 401: ApiError, 403: ApiError },
  }),
  createWebhook: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/services/:service/webhooks`,
    scope: 'write',
    service: 'path',
    summary: 'Add a webhook told of regressions and change points of this service',
    description:
      'Fired when a finished run regresses beyond `threshold_pct` against the release before it, or lands a change point in the service history. `format: slack` posts a Slack-compatible body. With a `secret`, each body is signed: `X-Kneeboard-Signature: sha256=<hex HMAC-SHA256>`. Failed deliveries are retried with backoff (1, 2, 4, 8 s by default; five attempts).',
    tags: ['webhooks'],
    params: ServiceParams,
    body: CreateWebhookBody,
    responses: { 201: WebhookInfo, 400: ApiError, 401: ApiError, 403: ApiError, 409: ApiError },
  }),
  deleteWebhook: endpoint({
    method: 'DELETE',
    path: `${API_PREFIX}/services/:service/webhooks/:webhook`,
    scope: 'write',
    service: 'path',
    summary: 'Remove a webhook; nothing more is sent to it',
    tags: ['webhooks'],
    params: WebhookParams,
    responses: { 200: WebhookInfo, 401: ApiError, 403: ApiError, 404: ApiError },
  }),
  testWebhook: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/services/:service/webhooks/:webhook/test`,
    scope: 'write',
    service: 'path',
    summary: 'Send a test notification now, once (no retry), and answer how it went',
    tags: ['webhooks'],
    params: WebhookParams,
    responses: { 200: WebhookDelivery, 401: ApiError, 403: ApiError, 404: ApiError },
  }),
  listDeliveries: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/services/:service/webhooks/:webhook/deliveries`,
    scope: 'write',
    service: 'path',
    summary: "A webhook's delivery log, newest first (the last 100 attempts)",
    tags: ['webhooks'],
    params: WebhookParams,
    responses: { 200: ListDeliveriesResponse, 401: ApiError, 403: ApiError, 404: ApiError },
  }),
} as const;
