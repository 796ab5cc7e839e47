import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listRuns, listServices, queryRunSummaries } from '@kneeboard/clickhouse';
import { ENDPOINTS, type ReleaseGroup } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { routeOf } from '../endpoint-route.ts';

const MAX_RUNS_PER_SERVICE = 500;

export const serviceRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.route({
    ...routeOf(ENDPOINTS.listServices),
    handler: async () => ({ services: await listServices(db) }),
  });

  app.route({
    ...routeOf(ENDPOINTS.serviceReleases),
    handler: async (req) => {
      const runs = await listRuns(db, { service: req.params.service, limit: MAX_RUNS_PER_SERVICE });
      const summaries = await queryRunSummaries(db, runs.map((r) => r.id));
      const groups = new Map<string, ReleaseGroup>();
      for (const run of runs) {
        const group = groups.get(run.release) ?? { release: run.release, first_run_at: run.created_at, runs: [] };
        group.first_run_at = Math.min(group.first_run_at, run.created_at);
        group.runs.push({ ...run, ...(summaries.get(run.id) ?? { levels: 0, requests: 0, peak_qps: null }) });
        groups.set(run.release, group);
      }
      return { service: req.params.service, releases: [...groups.values()].sort((a, b) => a.first_run_at - b.first_run_at) };
    },
  });
};
