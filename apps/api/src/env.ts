import { resolve } from 'node:path';
import { z } from 'zod';
import type { StorageConfig } from '@kneeboard/clickhouse';
import { DEFAULT_LATE_DATA_GRACE_MS } from '@kneeboard/contracts';
import { resolveAccess, type AccessConfig } from './access/config.ts';

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

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('127.0.0.1'),
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
  /** `public`: anyone who can reach the API reads; `token`: reads need a token too. */
  KNEEBOARD_READ: z.enum(['public', 'token']).default('public'),
});

export interface ApiConfig {
  port: number;
  host: string;
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  storage: StorageConfig;
  lateDataGraceMs: number;
  corsOrigins: string[];
  access: AccessConfig;
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
  return { port: e.PORT, host: e.HOST, logLevel: e.LOG_LEVEL, storage, lateDataGraceMs: e.KNEEBOARD_LATE_DATA_GRACE_S * 1000, corsOrigins: e.KNEEBOARD_CORS_ORIGINS,
    access: resolveAccess({ auth: e.KNEEBOARD_AUTH, host: e.HOST, adminToken: e.KNEEBOARD_ADMIN_TOKEN, read: e.KNEEBOARD_READ }),
  };
}
