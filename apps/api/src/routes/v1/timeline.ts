import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRun, queryRunTimeline } from '@kneeboard/clickhouse';
import { ApiError, MAX_TIMELINE_POINTS, RunTimeline, TimelineParams } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { notFound } from '../../errors.ts';

export const timelineRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { db }) => {
  app.get('/runs/:id/timeline', {
    schema: {
      summary: 'The whole run against wall-clock time: requests/s, errors and p50/p99 per second, and the steps to shade',
      description: `From the per-second rollup: every level's requests summed per wall-clock second (a request counts in the second it completed), errors = requests − successful (status 1–399), p50/p99 of the successful ones from the merged DDSketch states (within 0.5%; null in a second with none). Runs longer than ${MAX_TIMELINE_POINTS} s are read in buckets of several whole seconds (\`bucket_s\`), so there are never more than ${MAX_TIMELINE_POINTS} points. \`steps\` are the sweep's steps on the same clock: warm-up from started_at, measured from measure_from.`,
      tags: ['runs'],
      params: TimelineParams,
      response: { 200: RunTimeline, 400: ApiError, 404: ApiError },
    },
    handler: async (req) => {
      const { id } = req.params;
      const [run, timeline] = await Promise.all([getRun(db, id), queryRunTimeline(db, id)]);
      if (!run) throw notFound('run');
      return timeline;
    },
  });
};
