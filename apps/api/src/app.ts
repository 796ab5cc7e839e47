import { createServer } from 'node:http';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { openEventStore, type Db, type EventStoreOptions } from '@kneeboard/clickhouse';
import { DEFAULT_LATE_DATA_GRACE_MS } from '@kneeboard/contracts';
import { registerAuth } from './access/auth.ts';
import { OPEN_ACCESS, type AccessConfig } from './access/config.ts';
import { registerCors } from './access/cors.ts';
import { registerCrossSiteGuard } from './access/cross-site-guard.ts';
import { registerHostGuard } from './access/host-guard.ts';
import { OriginPolicy } from './access/origins.ts';
import { TokenAdmin } from './access/token-admin.ts';
import { TokenStore } from './access/token-store.ts';
import type { RouteDeps } from './deps.ts';
import { IngestService, type IngestOptions } from './ingest/ingest-service.ts';
import { LiveHub } from './live/live-hub.ts';
import { StreamSlots } from './live/stream-slots.ts';
import { registerBodyBudget } from './plugins/body-budget.ts';
import { registerErrorHandler } from './plugins/error-handler.ts';
import { DEFAULT_LIMITS, type Limits } from './plugins/limits.ts';
import { registerRateLimit } from './plugins/rate-limit.ts';
import { DEFAULT_RETENTION, registerRetention, type RetentionPolicy } from './plugins/retention.ts';
import { registerMethodNotAllowed } from './plugins/method-not-allowed.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { registerSecurityHeaders } from './plugins/security-headers.ts';
import { healthRoutes } from './routes/health.ts';
import { agentRoutes } from './routes/v1/agents.ts';
import { analysisRoutes } from './routes/v1/analysis.ts';
import { compareRoutes } from './routes/v1/compare.ts';
import { levelRoutes } from './routes/v1/levels.ts';
import { timelineRoutes } from './routes/v1/timeline.ts';
import { linkRoutes } from './routes/v1/links.ts';
import { runExportRoutes } from './routes/v1/run-exports.ts';
import { serviceRoutes } from './routes/v1/services.ts';
import { historyRoutes } from './routes/v1/history.ts';
import { eventRoutes } from './routes/v1/events.ts';
import { liveRoutes } from './routes/v1/live.ts';
import { runRoutes } from './routes/v1/runs.ts';
import { serverMetricRoutes } from './routes/v1/server-metrics.ts';
import { stepRoutes } from './routes/v1/steps.ts';
import { pngEmbedRoutes } from './routes/v1/png-embeds.ts';
import { tokenRoutes } from './routes/v1/tokens.ts';
import { buildComparison } from './services/compare.ts';
import { CompareGuard } from './services/compare-guard.ts';
import { ComparePool } from './services/compare-pool.ts';
import { createFleetCoordinator } from './services/fleet-storage.ts';
import { RunNotifier, type RunNotifierOptions } from './services/webhooks/run-notifier.ts';
import { DEFAULT_SENDER_OPTIONS, WebhookSender, type WebhookSenderOptions } from './services/webhooks/webhook-sender.ts';
import { webhookRoutes } from './routes/v1/webhooks.ts';
import { prometheusReadRoutes } from './routes/v1/server-metrics-prometheus.ts';
import { DEFAULT_PROMETHEUS_ALLOW } from './services/prometheus-allow.ts';
import { composeRunDetail, loadRunDetail } from './services/run-detail.ts';

/** Where the web app is when KNEEBOARD_WEB_URL does not say: the start command's. */
const DEFAULT_WEB_URL = 'http://localhost:3000';
/** A finished run is judged for webhooks this long after its finish. */
const DEFAULT_SETTLE_MS = 2_000;
/** How long an idle keep-alive connection stays open: above every client agent's idle timeout (Node's is 5 s). */
export const KEEP_ALIVE_MS = 72_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Judges finished runs for webhooks; `idle()` tells a test when it is done. */
    runNotifier: RunNotifier;
  }
}

export interface AppOptions {
  db: Db;
  logger?: FastifyServerOptions['logger'];
  /** The write path's rules and caches; defaults suit one API process or several. */
  ingest?: Partial<IngestOptions> & EventStoreOptions;
  /** Browser origins allowed CORS and cross-origin writes (KNEEBOARD_CORS_ORIGINS); none by default. */
  corsOrigins?: readonly string[];
  /** Tokens required or not, public or token reads; open (as on loopback with no token set) by default. */
  access?: AccessConfig;
  /** Body sizes, timeouts, rates, comparison and stream caps; the defaults of DEFAULT_LIMITS otherwise. */
  limits?: Partial<Limits>;
  /** Which runs are deleted when; runs labelled `pinned` never. Null: no sweep (tests sweep by hand). */
  retention?: RetentionPolicy | null;
  /** Start a comparison worker at once (the server does; the tests' many short-lived apps do not). */
  warmComparisons?: boolean;
  /** Webhook retries and timeouts, where they may post (KNEEBOARD_WEBHOOK_ALLOW; public addresses only by default), when a finished run is judged, and the web app's address for permalinks. */
  webhooks?: Partial<WebhookSenderOptions & RunNotifierOptions>;
  /** The Prometheus servers the API may query for a run's server metrics (KNEEBOARD_PROMETHEUS_ALLOW); loopback and this host by default. */
  prometheusAllow?: readonly string[];
}

/**
 * Builds the API as a Fastify instance without listening, so tests use app.inject() or listen on
 * port 0. Third-party plugins first, then the app's own, then the versioned routes.
 */
export async function buildApp({ db, logger = false, ingest: ingestOptions = {}, corsOrigins = [], access = OPEN_ACCESS, limits: limitOptions = {}, retention = DEFAULT_RETENTION, warmComparisons = false, webhooks: webhookOptions = {}, prometheusAllow = DEFAULT_PROMETHEUS_ALLOW }: AppOptions) {
  const limits: Limits = { ...DEFAULT_LIMITS, ...limitOptions };
  const app = Fastify({
    logger,
    // Above the longest path value a route accepts (an agent name is 128 characters, up to 12 bytes each once percent-encoded), so a long one is the route's 400, not a 414.
    routerOptions: { maxParamLength: 8192 },
    bodyLimit: limits.bodyBytes,
    // Node's own timeouts, checked every second rather than every 30 s (its default), so a slow
    // body is cut (408, connection closed) within a second of the limit.
    // keepAliveTimeout: Fastify's own 72 s (it does not apply it with a serverFactory). Node's
    // default, 5 s, equals the idle timeout of Node's client agent, so the dashboard's proxy sent a
    // request on a socket the API was closing that instant and answered the browser 500.
    serverFactory: (handler) =>
      createServer({ requestTimeout: limits.requestTimeoutMs, headersTimeout: Math.min(limits.requestTimeoutMs, 60_000), connectionsCheckingInterval: 1000, keepAliveTimeout: KEEP_ALIVE_MS }, handler),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const origins = new OriginPolicy(corsOrigins);
  registerSecurityHeaders(app);
  registerHostGuard(app, access);
  registerMethodNotAllowed(app);
  await registerCors(app, origins);
  await registerOpenApi(app);
  registerErrorHandler(app, limits);
  registerCrossSiteGuard(app, origins);
  const tokenStore = new TokenStore(db);
  registerAuth(app, access, tokenStore, db);
  await registerRateLimit(app, limits, access);
  const bodies = registerBodyBudget(app, limits, access);
  const tokens = new TokenAdmin(db, tokenStore);

  // The one place storage's kind is decided for the write path: everything below sees the EventStore.
  const { onLedgerError, ledgerRefreshMs, ...ingestRules } = ingestOptions;
  const store = openEventStore(db, {
    onLedgerError: onLedgerError ?? ((err) => app.log.error({ err }, 'batch ledger write failed; it is retried')),
    ...(ledgerRefreshMs !== undefined ? { ledgerRefreshMs } : {}),
    ...(ingestRules.maxRuns !== undefined ? { maxRuns: ingestRules.maxRuns } : {}),
  });
  const hub = new LiveHub(
    (runId) => loadRunDetail(db, runId),
    (err) => app.log.error({ err }, 'live update failed'),
    {
      // Where other processes write too, their batches are seen by change marks.
      marks: store.changeMarks,
      // Where this process sees every write, stored batches are shown from memory (no query per snapshot).
      figures: store.live && { live: store.live, compose: (base, curve) => composeRunDetail(base.run, base.steps, curve, 'rollup') },
    },
  );
  store.onChange((runId) => hub.stored(runId));
  app.addHook('onClose', async () => hub.close());
  const ingest = new IngestService(db, store, { lateDataGraceMs: DEFAULT_LATE_DATA_GRACE_MS, ...ingestRules });
  // Every "run changed": batches from the store, everything else from the write path.
  ingest.onRunChange((runId) => hub.notify(runId));
  // Before the first request: what a crashed process left half written is put right (rollup included).
  app.addHook('onReady', async () => {
    const recovered = await ingest.recover().catch((err: unknown) => void app.log.error({ err }, 'crash recovery at start-up failed; each run is recovered before its next write'));
    if (recovered && recovered.length > 0) app.log.warn({ runs: recovered }, 'recovered runs a crashed process left half written');
  });
  // Rows not written here are the tolerated loss the batch writer describes (a crash loses them too).
  app.addHook('onClose', async () => ingest.flushLedger().catch((err) => app.log.error({ err }, 'batch ledger rows not written at shutdown')));

  // The bootstrap runs in worker threads, as many as comparisons may run at once.
  const comparePool = new ComparePool(limits.compareConcurrency);
  if (warmComparisons) comparePool.warm();
  app.addHook('onClose', async () => comparePool.close());
  const comparisons = new CompareGuard(db, limits, ingest.lateDataGraceMs, (d, q) => buildComparison(d, q, comparePool.compare));
  hub.onChange((runId) => comparisons.forget(runId));
  const liveSlots = new StreamSlots(limits.livePerClient, limits.liveTotal);
  if (retention) {
    registerRetention(app, db, retention, (runId) => ingest.forgetDeleted(runId));
  }

  const { webUrl = DEFAULT_WEB_URL, settleMs = DEFAULT_SETTLE_MS, ...senderOptions } = webhookOptions;
  const sender = new WebhookSender(db, { ...DEFAULT_SENDER_OPTIONS, ...senderOptions }, (err) => app.log.error({ err }, 'webhook delivery log write failed'));
  const notifier = new RunNotifier(db, comparisons, sender, { webUrl, settleMs }, (err) => app.log.error({ err }, 'judging a finished run for webhooks failed'));
  app.decorate('runNotifier', notifier);
  app.addHook('onClose', async () => {
    notifier.close();
    sender.close();
  });
  const deps: RouteDeps = { db, hub, ingest, tokens, limits, comparisons, liveSlots, bodies, webhooks: { sender, notifier, webUrl } };
  const fleet = createFleetCoordinator(db, hub, ingest, (err) => app.log.error({ err }, 'fleet write failed'));
  app.addHook('onClose', async () => fleet.close());
  // Before it listens: plans under way when an API process stopped are resumed (their step in flight marked partial).
  app.addHook('onReady', async () => fleet.start());
  await app.register(healthRoutes, deps);
  // No prefix: each route's full path (under /api/v1) is its row's in the endpoint table.
  await app.register(
    async (v1) => {
      await v1.register(runRoutes, deps);
      await v1.register(stepRoutes, deps);
      await v1.register(eventRoutes, deps);
      await v1.register(liveRoutes, deps);
      await v1.register(analysisRoutes, deps);
      await v1.register(levelRoutes, deps);
      await v1.register(timelineRoutes, deps);
      await v1.register(runExportRoutes, deps);
      await v1.register(pngEmbedRoutes, deps);
      await v1.register(compareRoutes, deps);
      await v1.register(serviceRoutes, deps);
      await v1.register(historyRoutes, deps);
      await v1.register(serverMetricRoutes, deps);
      await v1.register(prometheusReadRoutes, { ...deps, prometheusAllow });
      await v1.register(linkRoutes, deps);
      await v1.register(tokenRoutes, deps);
      await v1.register(webhookRoutes, deps);
      await v1.register(agentRoutes, { ...deps, fleet });
    },
  );
  return app;
}

export type KneeboardApp = Awaited<ReturnType<typeof buildApp>>;
