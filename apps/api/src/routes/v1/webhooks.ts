import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listDeliveries, listWebhooks, writeWebhook, type WebhookRow } from '@kneeboard/clickhouse';
import { ENDPOINTS, type WebhookNotification } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError, notFound } from '../../errors.ts';
import { webhookInfo } from '../../services/webhooks/webhook-format.ts';
import { routeOf } from '../endpoint-route.ts';

/** Enough for a team's channels and CI; a script that adds one per run is refused. */
const MAX_WEBHOOKS_PER_SERVICE = 20;

const newId = () => `wh_${randomBytes(8).toString('hex')}`;

/** A service's webhooks (issue 29): added, listed (URL path and secret never shown), removed, tested, and their delivery log. */
export const webhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, webhooks }) => {
  async function find(service: string, id: string): Promise<WebhookRow> {
    const hook = (await listWebhooks(db, service)).find((h) => h.id === id);
    if (!hook) throw notFound('webhook', 'webhook');
    return hook;
  }

  app.route({
    ...routeOf(ENDPOINTS.listWebhooks),
    handler: async (req) => ({ webhooks: (await listWebhooks(db, req.params.service)).map(webhookInfo) }),
  });

  app.route({
    ...routeOf(ENDPOINTS.createWebhook),
    handler: async (req, reply) => {
      const { service } = req.params;
      if ((await listWebhooks(db, service)).length >= MAX_WEBHOOKS_PER_SERVICE) {
        throw new HttpError(409, `service ${service} has ${MAX_WEBHOOKS_PER_SERVICE} webhooks, the most it may have: remove one first`, 'service');
      }
      const b = req.body;
      // Where it may post (KNEEBOARD_WEBHOOK_ALLOW): an IP literal or `localhost` is judged now, any name again at each delivery.
      const refused = webhooks.sender.allow.refusal(new URL(b.url));
      if (refused !== null) throw new HttpError(400, refused, 'url');
      const row: WebhookRow = {
        id: newId(),
        service,
        url: b.url,
        format: b.format,
        events: b.events,
        threshold_pct: b.threshold_pct,
        secret: b.secret ?? '',
        description: b.description ?? '',
        created_at: Date.now(),
        deleted_at: null,
      };
      await writeWebhook(db, row);
      return reply.code(201).send(webhookInfo(row));
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.deleteWebhook),
    handler: async (req) => {
      const hook = await find(req.params.service, req.params.webhook);
      await writeWebhook(db, { ...hook, deleted_at: Date.now() });
      return webhookInfo(hook);
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.testWebhook),
    handler: async (req) => {
      const hook = await find(req.params.service, req.params.webhook);
      const n: WebhookNotification = {
        event: 'test',
        service: hook.service,
        release: null,
        run_id: null,
        summary: `A test from Kneeboard: this webhook is told of ${hook.events.map((e) => (e === 'change_point' ? 'change points' : 'regressions')).join(' and ')} of ${hook.service} beyond ${hook.threshold_pct}%.`,
        figures: [],
        url: `${webhooks.webUrl}/services/${encodeURIComponent(hook.service)}`,
        sent_at: Date.now(),
      };
      return webhooks.sender.deliver(hook, n, { retry: false });
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.listDeliveries),
    handler: async (req) => {
      const hook = await find(req.params.service, req.params.webhook);
      return { deliveries: await listDeliveries(db, hook.id) };
    },
  });
};
