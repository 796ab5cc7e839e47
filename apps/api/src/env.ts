import { resolve } from 'node:path';
import { z } from 'zod';
import type { StorageConfig } from '@kneeboard/clickhouse';
import { DEFAULT_API_PORT, DEFAULT_HOST, DEFAULT_LATE_DATA_GRACE_MS, DEFAULT_MAX_NAMES_PER_RUN } from '@kneeboard/contracts';
import { resolveAccess, type AccessConfig } from './access/config.ts';
import { PrometheusAllowList } from './services/prometheus-allow.ts';
import { WebhookAllowList } from './services/webhooks/webhook-allow.ts';
import { DEFAULT_LIMITS, type Limits } from './plugins/limits.ts';
import { DEFAULT_RETENTION, type RetentionPolicy } from './plugins/retention.ts';

/**
 * The API's whole configuration, parsed once at start-up. With no variables set it runs on the
 * embedded chDB engine with data under ./.data/clickhouse; CLICKHOUSE_URL switches to a server.
 */
/** `https://a.example, https://b.example:8443` → each an http(s) origin: scheme, host, port, nothing else. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/** `https://a.example, https://b.example:8443` → each an http(s) origin: scheme, host, port, nothing else. */
const OriginList = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((o) => o.trim()).filter((o) => o !== ''))
  .pipe(z.array(z.string().refine(isOrigin, 'must be an http(s) origin like https://kb.example.com (no path, no wildcard)').transform((o) => new URL(o).origin)));

/** `kb.lan, KB.lan:8080` → `kb.lan`, `kb.lan:8080`: host names as a Host header carries them, without scheme or path. */
const HostList = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))
  .pipe(z.array(z.string().regex(/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)(:\d{1,5})?$/, 'must be a host name, optionally with a port, like kb.lan or kb.lan:6400 (no scheme, no path)')));

/** `checkout=30, search=0` → per service, days kept (0: forever). */
const RetentionList = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((p) => p.trim()).filter((p) => p !== ''))
  .pipe(
    z.array(
      z
        .string()
        .regex(/^[^=]+=\d+(\.\d+)?$/, 'must be service=days, e.g. checkout=30 (0: keep forever)')
        .transform((p) => {
          const at = p.lastIndexOf('=');
          const days = Number(p.slice(at + 1));
          return { service: p.slice(0, at).trim(), days: days === 0 ? null : days };
        }),
    ),
  );

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_API_PORT),
  HOST: z.string().default(DEFAULT_HOST),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KNEEBOARD_DATA_DIR: z.string().min(1).default('.data/clickhouse'),
  CLICKHOUSE_URL: z.url({ protocol: /^https?$/ }).optional(),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('default'),
  /** A cluster in the server's remote_servers: shard-local tables on every node, Distributed tables for reads. */
  CLICKHOUSE_CLUSTER: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  /** How long a finished run still takes a spooling agent's late batches, steps and finish. */
  KNEEBOARD_LATE_DATA_GRACE_S: z.coerce.number().int().min(0).max(7 * 86_400).default(DEFAULT_LATE_DATA_GRACE_MS / 1000),
  /** Distinct request names one run may hold: a batch that would go past it is refused (400 naming the cap). */
  KNEEBOARD_MAX_NAMES_PER_RUN: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_MAX_NAMES_PER_RUN),
  /** Browser origins (comma-separated) allowed CORS and cross-origin writes; none by default. */
  KNEEBOARD_CORS_ORIGINS: OriginList,
  /** `auto`: tokens required beyond loopback (or with an admin token or token reads); `required`: always. */
  KNEEBOARD_AUTH: z.enum(['auto', 'required']).default('auto'),
  /** The first admin token, stored hashed. Unset (or empty): one is generated and printed once. */
  KNEEBOARD_ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .pipe(z.string().min(24, 'must be at least 24 characters (e.g. openssl rand -hex 32)').optional()),
  /** Host names an open (no-token) server answers besides loopback ones: `kb.lan, kb.lan:8080`. */
  KNEEBOARD_ALLOWED_HOSTS: HostList,
  /** `public`: anyone who can reach the API reads; `token`: reads need a token too. */
  KNEEBOARD_READ: z.enum(['public', 'token']).default('public'),
  // Limits (see plugins/limits.ts and the README's "Limits and retention").
  KNEEBOARD_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(DEFAULT_LIMITS.bodyBytes),
  KNEEBOARD_EVENTS_BODY_LIMIT_BYTES: z.coerce.number().int().min(64 * 1024).max(256 * 1024 * 1024).default(DEFAULT_LIMITS.eventsBodyBytes),
  KNEEBOARD_BODY_BUDGET_BYTES: z.coerce.number().int().min(1024 * 1024).default(DEFAULT_LIMITS.bodyBudgetBytes),
  KNEEBOARD_BODY_BUDGET_PER_CLIENT_BYTES: z.coerce.number().int().min(1024 * 1024).default(DEFAULT_LIMITS.bodyBudgetPerClientBytes),
  KNEEBOARD_BODY_START_TIMEOUT_S: z.coerce.number().min(0.1).max(3600).default(DEFAULT_LIMITS.bodyStartTimeoutMs / 1000),
  KNEEBOARD_REQUEST_TIMEOUT_S: z.coerce.number().min(1).max(3600).default(DEFAULT_LIMITS.requestTimeoutMs / 1000),
  /** 0 turns the rate limit off. */
  KNEEBOARD_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(0).default(DEFAULT_LIMITS.rateMax),
  KNEEBOARD_COMPARE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(DEFAULT_LIMITS.compareConcurrency),
  KNEEBOARD_COMPARE_QUEUE: z.coerce.number().int().min(0).max(10_000).default(DEFAULT_LIMITS.compareQueue),
  KNEEBOARD_COMPARE_MAX_RUNS: z.coerce.number().int().min(2).max(80).default(DEFAULT_LIMITS.compareMaxRuns),
  KNEEBOARD_COMPARE_CACHE: z.coerce.number().int().min(0).max(100_000).default(DEFAULT_LIMITS.compareCacheEntries),
  KNEEBOARD_LIVE_PER_CLIENT: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_LIMITS.livePerClient),
  KNEEBOARD_LIVE_TOTAL: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_LIMITS.liveTotal),
  KNEEBOARD_MIN_FREE_BYTES: z.coerce.number().int().min(0).default(DEFAULT_LIMITS.minFreeBytes),
  /** Days a run is kept after it ended (runs labelled `pinned`: forever); 0: forever. */
  KNEEBOARD_RETENTION_DAYS: z.coerce.number().min(0).max(36_500).default(DEFAULT_RETENTION.defaultDays ?? 0),
  /** Per service: `checkout=30,search=0` (0: forever). */
  KNEEBOARD_RETENTION_SERVICES: RetentionList,
  KNEEBOARD_RETENTION_SWEEP_S: z.coerce.number().int().min(10).max(7 * 86_400).default(DEFAULT_RETENTION.sweepEveryMs / 1000),
  /** The web app's address as the team opens it: the permalinks in webhook notifications start with it. */
  KNEEBOARD_WEB_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('http://localhost:3000').transform((u) => u.replace(/\/+$/, '')),
  /** The first webhook retry's wait, doubled for each next one (five attempts in all). */
  KNEEBOARD_WEBHOOK_RETRY_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  /** Where webhooks may post: `public` (default), `loopback`, `private`, `hooks.lan:8080` (see services/webhooks/webhook-allow.ts). */
  KNEEBOARD_WEBHOOK_ALLOW: WebhookAllowList,
  /** The Prometheus servers the API may query for a run's server metrics: `loopback, self, prom.lan:9090`, `*` any (see services/prometheus-allow.ts). */
  KNEEBOARD_PROMETHEUS_ALLOW: PrometheusAllowList,
});

export interface ApiConfig {
  port: number;
  host: string;
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  storage: StorageConfig;
  lateDataGraceMs: number;
  maxNamesPerRun: number;
  corsOrigins: string[];
  access: AccessConfig;
  limits: Limits;
  retention: RetentionPolicy;
  webhooks: { webUrl: string; retryBaseMs: number; allow: string[] };
  prometheusAllow: string[];
}

export function parseEnv(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.CLICKHOUSE_CLUSTER && !e.CLICKHOUSE_URL) throw new Error('invalid environment:\n  CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL (a node of that cluster)');
  const storage: StorageConfig = e.CLICKHOUSE_URL
    ? { mode: 'server', url: e.CLICKHOUSE_URL, username: e.CLICKHOUSE_USER, password: e.CLICKHOUSE_PASSWORD, database: e.CLICKHOUSE_DATABASE, cluster: e.CLICKHOUSE_CLUSTER }
    : { mode: 'embedded', path: resolve(e.KNEEBOARD_DATA_DIR) };
  return { port: e.PORT, host: e.HOST, logLevel: e.LOG_LEVEL, storage, lateDataGraceMs: e.KNEEBOARD_LATE_DATA_GRACE_S * 1000, maxNamesPerRun: e.KNEEBOARD_MAX_NAMES_PER_RUN, corsOrigins: e.KNEEBOARD_CORS_ORIGINS,
    access: resolveAccess({ auth: e.KNEEBOARD_AUTH, host: e.HOST, adminToken: e.KNEEBOARD_ADMIN_TOKEN, read: e.KNEEBOARD_READ, allowedHosts: e.KNEEBOARD_ALLOWED_HOSTS }),
    limits: {
      bodyBytes: e.KNEEBOARD_BODY_LIMIT_BYTES,
      eventsBodyBytes: e.KNEEBOARD_EVENTS_BODY_LIMIT_BYTES,
      bodyBudgetBytes: e.KNEEBOARD_BODY_BUDGET_BYTES,
      bodyBudgetPerClientBytes: e.KNEEBOARD_BODY_BUDGET_PER_CLIENT_BYTES,
      bodyStartTimeoutMs: e.KNEEBOARD_BODY_START_TIMEOUT_S * 1000,
      requestTimeoutMs: e.KNEEBOARD_REQUEST_TIMEOUT_S * 1000,
      rateMax: e.KNEEBOARD_RATE_LIMIT_PER_MIN,
      rateWindowMs: 60_000,
      compareConcurrency: e.KNEEBOARD_COMPARE_CONCURRENCY,
      compareQueue: e.KNEEBOARD_COMPARE_QUEUE,
      compareMaxRuns: e.KNEEBOARD_COMPARE_MAX_RUNS,
      compareCacheEntries: e.KNEEBOARD_COMPARE_CACHE,
      livePerClient: e.KNEEBOARD_LIVE_PER_CLIENT,
      liveTotal: e.KNEEBOARD_LIVE_TOTAL,
      minFreeBytes: e.KNEEBOARD_MIN_FREE_BYTES,
    },
    retention: {
      defaultDays: e.KNEEBOARD_RETENTION_DAYS === 0 ? null : e.KNEEBOARD_RETENTION_DAYS,
      services: e.KNEEBOARD_RETENTION_SERVICES,
      sweepEveryMs: e.KNEEBOARD_RETENTION_SWEEP_S * 1000,
    },
    webhooks: { webUrl: e.KNEEBOARD_WEB_URL, retryBaseMs: e.KNEEBOARD_WEBHOOK_RETRY_MS, allow: e.KNEEBOARD_WEBHOOK_ALLOW },
    prometheusAllow: e.KNEEBOARD_PROMETHEUS_ALLOW,
  };
}
