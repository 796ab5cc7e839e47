import { z } from 'zod';
import { endpoint } from './endpoint.ts';

const Check = z.object({ ok: z.boolean(), message: z.string() });
export const Liveness = z.object({ ok: z.boolean(), storage: z.string() });
export const Readiness = z.object({
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

/** Outside the versioned API and never checked: what a load balancer, an agent at start-up and a client generator ask. */
export const healthEndpoints = {
  openApi: endpoint({ method: 'GET', path: '/openapi.json', scope: 'public', hidden: true }),
  healthz: endpoint({
    method: 'GET',
    path: '/healthz',
    scope: 'public',
    summary: 'Liveness: the process answers (and whether ClickHouse answers a ping). For traffic decisions use /readyz.',
    tags: ['health'],
    responses: { 200: Liveness, 503: Liveness },
  }),
  readyz: endpoint({
    method: 'GET',
    path: '/readyz',
    scope: 'public',
    summary: 'Readiness: ClickHouse answers, the data directory is writable, free space above KNEEBOARD_MIN_FREE_BYTES; 503 naming the failing check',
    tags: ['health'],
    responses: { 200: Readiness, 503: Readiness },
  }),
} as const;
