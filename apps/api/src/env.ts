import { resolve } from 'node:path';
import { z } from 'zod';
import type { StorageConfig } from '@kneeboard/clickhouse';
import { DEFAULT_LATE_DATA_GRACE_MS } from '@kneeboard/contracts';

/**
 * The API's whole configuration, parsed once at start-up. With no variables set it runs on the
 * embedded chDB engine with data under ./.data/clickhouse; CLICKHOUSE_URL switches to a server.
 */
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
});

export interface ApiConfig {
  port: number;
  host: string;
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  storage: StorageConfig;
  lateDataGraceMs: number;
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
  return { port: e.PORT, host: e.HOST, logLevel: e.LOG_LEVEL, storage, lateDataGraceMs: e.KNEEBOARD_LATE_DATA_GRACE_S * 1000 };
}
