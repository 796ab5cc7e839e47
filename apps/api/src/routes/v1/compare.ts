import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { markdownLinkTarget } from '@kneeboard/analysis';
import { compareMarkdown } from '@kneeboard/analysis/compare';
import { CompareQuery, endpointPath, ENDPOINTS, formatRunGroupRef, formatSlos } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { compareCurveSvg } from '../../services/curve-svg.ts';
import { routeOf } from '../endpoint-route.ts';

export const compareRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { comparisons }) => {
  /** Every comparison goes through the guard (caps, queue, cache); the header says how it was had. */
  const compared = async (query: CompareQuery, reply: FastifyReply) => {
    const { result, source } = await comparisons.compareQuery(query);
    void reply.header('x-kneeboard-compare', source);
    return result;
  };

  app.route({
    ...routeOf(ENDPOINTS.compare),
    handler: async (req, reply) => (await compared(req.query, reply)).report,
  });

  app.route({
    ...routeOf(ENDPOINTS.compareMarkdown),
    handler: async (req, reply) => {
      const { report } = await compared(req.query, reply);
      // The links keep the sides as written: a release link follows the release's newest runs.
      const pairs: Array<[string, string]> = [['base', formatRunGroupRef(req.query.base)], ...req.query.head.map((h): [string, string] => ['head', formatRunGroupRef(h)])];
      // …and the noise basis this answer used, so the link reproduces its verdict.
      const asof = req.query.noise_asof ?? report.heads.find((h) => h.noise.history)?.noise.history?.asof;
      if (asof !== undefined) pairs.push(['noise_asof', String(asof)]);
      // …and the SLOs its capacity line was judged under.
      if (req.query.slo && req.query.slo.length > 0) pairs.push(['slo', formatSlos(req.query.slo)]);
      // …and the one endpoint it compared.
      if (req.query.name !== undefined) pairs.push(['name', req.query.name]);
      const qs = new URLSearchParams(pairs).toString();
      const web = req.query.web?.replace(/\/+$/, '');
      const links = web ? { view: markdownLinkTarget(`${web}${req.query.view ?? `/compare?${qs}`}`) ?? undefined, svg: markdownLinkTarget(`${web}${endpointPath(ENDPOINTS.compareSvg, {})}?${qs}`) ?? undefined } : {};
      // Service, release, run names and the parameter are user strings: compareMarkdown escapes them.
      const markdown = compareMarkdown(report, report.base.parameter, links);
      return reply.type('text/markdown; charset=utf-8').send(markdown);
    },
  });

  app.route({
    ...routeOf(ENDPOINTS.compareSvg),
    handler: async (req, reply) => {
      const { report, details } = await compared(req.query, reply);
      const summary = report.heads.map((h) => h.overall.summary).join(' ');
      return reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'no-cache').send(compareCurveSvg(details, summary, req.query));
    },
  });
};
