import { describeStorage, migrate, openDb } from '@kneeboard/clickhouse';
import { announceAccess } from './access/announce.ts';
import { buildApp } from './app.ts';
import { parseEnv } from './env.ts';

/** Starts the API: parse env, open storage, apply migrations, listen; close cleanly on a signal. */
async function main(): Promise<void> {
  const config = parseEnv();
  const db = openDb(config.storage);
  const app = await buildApp({ db, logger: { level: config.logLevel }, ingest: { lateDataGraceMs: config.lateDataGraceMs, maxNamesPerRun: config.maxNamesPerRun }, corsOrigins: config.corsOrigins, access: config.access, limits: config.limits, retention: config.retention, warmComparisons: true, webhooks: config.webhooks, prometheusAllow: config.prometheusAllow });
  // Another API process migrating the same server is waited for; the wait (and a stale lock broken) is logged.
  const applied = await migrate(db, undefined, { lock: { log: (line) => app.log.warn(line) } });
  app.log.info({ storage: describeStorage(config.storage), migrations_applied: applied.map((m) => `${m.version}_${m.name}`) }, 'storage ready');
  await announceAccess(app.log, db, config);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((err: unknown) => {
  console.error(`kneeboard api: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
