import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describeStorage, type Db } from '@kneeboard/clickhouse';
import type { RouteDeps } from '../deps.ts';
import { LIMIT_VARS } from '../plugins/limits.ts';

const Check = z.object({ ok: z.boolean(), message: z.string() });
const Readiness = z.object({
  ready: z.boolean(),
  storage: z.string(),
  checks: z.object({
    clickhouse: Check,
    data_dir: Check,
    disk: Check.extend({ free_bytes: z.number().nullable(), min_free_bytes: z.number() }),
  }),
  /** What the API is busy with: open streams, runs watched, comparisons running and waiting. */
  load: z.object({ live_streams: z.number(), watched_runs: z.number(), live_refreshes: z.number(), live_polls: z.number(), compare_running: z.number(), compare_waiting: z.number(), compare_cached: z.number(), body_bytes_in_flight: z.number() }),
});

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
  if (db.config.mode !== 'embedded') return 'on the ClickHouse server';
  const probe = join(db.config.path, `.kb-ready-${randomUUID()}`);
  await writeFile(probe, 'ok');
  await rm(probe, { force: true });
  return `${db.config.path} writable`;
}

export const healthRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub, comparisons, liveSlots, limits, bodies }) => {
  app.get('/healthz', {
    schema: {
      summary: 'Liveness: the process answers (and whether ClickHouse answers a ping). For traffic decisions use /readyz.',
      tags: ['health'],
      response: { 200: z.object({ ok: z.boolean(), storage: z.string() }), 503: z.object({ ok: z.boolean(), storage: z.string() }) },
    },
    handler: async (_req, reply) => {
      const ping = await db.client.ping();
      return reply.code(ping.success ? 200 : 503).send({ ok: ping.success, storage: describeStorage(db.config) });
    },
  });

  app.get('/readyz', {
    schema: {
      summary: `Readiness: ClickHouse answers, the data directory is writable, free space above ${LIMIT_VARS.minFreeBytes}; 503 naming the failing check`,
      tags: ['health'],
      response: { 200: Readiness, 503: Readiness },
    },
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
