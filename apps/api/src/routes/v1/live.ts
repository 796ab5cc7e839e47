import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS, LIVE_EVENT, type LiveEnd } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { clientKey } from '../../plugins/client-key.ts';
import { capacitySender, type LiveSnapshot } from '../../services/live-capacity.ts';
import { loadRunDetail, requireName } from '../../services/run-detail.ts';
import { routeOf } from '../endpoint-route.ts';

/** Proxies drop idle connections; a comment line every 15 s keeps the stream open. */
const HEARTBEAT_MS = 15_000;

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const liveRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db, hub, liveSlots }) => {
  app.route({
    ...routeOf(ENDPOINTS.runLive),
    handler: async (req, reply) => {
      const first = await loadRunDetail(db, req.params.id);
      if (!first) throw notFound('run');
      // `name=`: that request name's snapshots, made from the whole run's (the hub's) as they come; a
      // name the run does not carry is GET /runs/{id}?name='s 404.
      const name = req.query.name ?? null;
      if (name !== null) requireName(first.names ?? [], name);
      // 429 beyond the per-client and total caps; the slot is released when the stream closes.
      const release = liveSlots.acquire(clientKey(req));

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });

      let closed = false;
      const cleanups: Array<() => void> = [release];
      const close = () => {
        if (closed) return;
        closed = true;
        for (const c of cleanups) c();
        res.end();
      };
      const end = (status: LiveEnd['status']) => {
        if (closed) return;
        const last: LiveEnd = { status };
        res.write(frame(LIVE_EVENT.end, last));
        close();
      };
      const write = (detail: LiveSnapshot) => {
        if (closed) return;
        res.write(frame(LIVE_EVENT.snapshot, detail));
        if (detail.run.status !== 'running') end(detail.run.status);
      };

      // Every viewer's snapshots go through the sender: a run's request names can appear after it started.
      const send = capacitySender(db, {
        slos: req.query.slo ?? null,
        name,
        write,
        end,
        onError: (err) => req.log.warn({ err }, 'live snapshot analysis failed'),
      });

      res.write('retry: 1000\n\n');
      if (first.run.status === 'running') {
        cleanups.push(hub.subscribe(req.params.id, send, first));
        const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
        cleanups.push(() => clearInterval(heartbeat));
      }
      req.raw.on('close', close);
      send(first);
    },
  });
};
