import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRun, queryLevelDetail } from '@kneeboard/clickhouse';
import { ApiError, LevelDetail, LevelParams } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';

export const levelRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.get('/runs/:id/levels/:level', {
    schema: {
      summary: 'Inside one level: min/mean/max, the percentile spectrum, a latency histogram, the step over time (warm-up included) and the status codes',
      description:
        'Statistics count the rows of the level\'s measurement window, as its curve point does; latency is over successful requests (status 1–399). Percentiles are exact (quantilesExactInclusive). The timeline runs from the step\'s start, warm-up included, in slices of 100 ms–1 s (wider for steps over a minute) flagged `measured` from measure_from. Status 0 = a transport error.',
      tags: ['runs'],
      params: LevelParams,
      response: { 200: LevelDetail, 400: ApiError, 404: ApiError },
    },
    handler: async (req) => {
      const { id, level } = req.params;
      const [run, detail] = await Promise.all([getRun(db, id), queryLevelDetail(db, id, level)]);
      if (!run) throw notFound('run');
      if (!detail) throw notFound(`level ${level} of this run`, 'level');
      return detail;
    },
  });
};
