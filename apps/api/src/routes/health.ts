import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describeStorage, type Db } from '@kneeboard/clickhouse';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../deps.ts';
import { LIMIT_VARS } from '../plugins/limits.ts';
import { routeOf } from './endpoint-route.ts';

const DisksRow = z.object({ free: z.coerce.number() });

const failure = (err: unknown) => (err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err));

/** The least free space over the disks ClickHouse stores on (system.disks: the embedded engine's too). */
async function freeBytes(db: Db): Promise<number> {
  const result = await db.client.query({ query: 'SELECT min(unreserved_space) AS free FROM system.disks', format: 'JSONEachRow' });
  const [row] = z.array(DisksRow).parse(await result.json());
  return row?.free ?? 0;
}

/** Embedded: a file can be created and removed in the data directory. Server: its disks are the server's to write. */
async function dataDirWritable(db: Db): Promise<string> {
  if (db.dataDir === null) return 'on the ClickHouse server';
  const probe = join(db.dataDir, `.kb-ready-${randomUUID()}`);
  await writeFile(probe, 'ok');
  await rm(probe, { force: true });
  return `${db.dataDir} writable`;
}

export const healthRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub, comparisons, liveSlots, limits, bodies }) => {
  app.route({
    ...routeOf(ENDPOINTS.healthz),
    handler: async (_req, reply) => {
      const ping = await db.client.ping();
      return reply.code(ping.success ? 200 : 503).send({ ok: ping.success, storage: describeStorage(db.config) });
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.readyz),
    handler: async (_req, reply) => {
      const clickhouse = await db.client
        .query({ query: 'SELECT 1', format: 'JSONEachRow' })
        .then((r) => r.json())
        .then(() => ({ ok: true, message: 'answers' }), (err: unknown) => ({ ok: false, message: `unreachable: ${failure(err)}` }));
      const data_dir = await dataDirWritable(db).then((message) => ({ ok: true, message }), (err: unknown) => ({ ok: false, message: `not writable: ${failure(err)}` }));
      const free = clickhouse.ok ? await freeBytes(db).catch(() => null) : null;
      const disk =
        free === null
          ? { ok: false, message: 'free space unknown (ClickHouse did not answer)', free_bytes: null, min_free_bytes: limits.minFreeBytes }
          : {
              ok: free >= limits.minFreeBytes,
              message: free >= limits.minFreeBytes ? 'enough free space' : `${free} bytes free, below ${limits.minFreeBytes} (${LIMIT_VARS.minFreeBytes}): writes may fail with 507`,
              free_bytes: free,
              min_free_bytes: limits.minFreeBytes,
            };
      const live = hub.stats;
      const ready = clickhouse.ok && data_dir.ok && disk.ok;
      return reply.code(ready ? 200 : 503).send({
        ready,
        storage: describeStorage(db.config),
        checks: { clickhouse, data_dir, disk },
        load: { live_streams: liveSlots.open, watched_runs: live.watchedRuns, live_refreshes: live.refreshes, live_polls: live.polls, compare_running: comparisons.queue.running, compare_waiting: comparisons.queue.waiting, compare_cached: comparisons.cached, body_bytes_in_flight: bodies.inFlight },
      });
    },
  });
};
