import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { readRunFromPrometheus } from '../../services/prometheus-read.ts';
import { routeOf } from '../endpoint-route.ts';

/** A finished or imported run's server metrics, read by the API from a Prometheus server its allow-list names (issue 28). */
export const prometheusReadRoutes: FastifyPluginAsyncZod<RouteDeps & { prometheusAllow: readonly string[] }> = async (app, { db, ingest, prometheusAllow }) => {
  app.route({
    ...routeOf(ENDPOINTS.readPrometheusMetrics),
    handler: async (req) => readRunFromPrometheus(db, ingest, req.params.id, req.body, prometheusAllow),
  });
};
