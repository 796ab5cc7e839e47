import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ENDPOINTS, stepSpanProblem } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { HttpError } from '../../errors.ts';
import { orUnavailable } from '../../ingest/storage-failure.ts';
import { routeOf } from '../endpoint-route.ts';

export const stepRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { ingest }) => {
  app.route({
    ...routeOf(ENDPOINTS.postStep),
    handler: async (req) => {
      const { span } = await ingest.writableRun(req.params.id, 'late step windows');
      const far = stepSpanProblem({ from: span.steps_from, to: span.steps_to }, req.body);
      if (far) throw new HttpError(400, far.message, far.field);
      await orUnavailable('the step window', () => ingest.recordStep(req.params.id, req.body));
      return { ok: true as const };
    },
  });
};
