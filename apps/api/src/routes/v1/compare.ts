import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { markdownLinkTarget } from '@kneeboard/analysis';
import { compareMarkdown } from '@kneeboard/analysis/compare';
import { ApiError, CompareQuery, CompareResponse, formatRunGroupRef, SvgViewQuery, ViewPath } from '@kneeboard/contracts';
import type { RouteDeps } from '../../deps.ts';
import { compareCurveSvg } from '../../services/curve-svg.ts';

const MarkdownQuery = CompareQuery.extend({
  /** The web app's origin, so the Markdown can link to the interactive view and the embeddable SVG (http or https only). */
  web: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** The view's own path and query, so the link reopens it with its settings. */
  view: ViewPath.optional(),
});

export const compareRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { comparisons }) => {
  /** Every comparison goes through the guard (caps, queue, cache); the header says how it was had. */
  const compared = async (query: CompareQuery, reply: FastifyReply) => {
    const { result, source } = await comparisons.compareQuery(query);
    void reply.header('x-kneeboard-compare', source);
    return result;
  };

  app.get('/compare', {
    schema: {
      summary: 'Compare head runs with a base run: per-level deltas with bootstrap intervals and verdicts. A side is a run id, ids of repeated runs (ID,ID,ID) or release:SERVICE@RELEASE (its newest finished runs)',
      tags: ['compare'],
      querystring: CompareQuery,
      response: { 200: CompareResponse, 400: ApiError, 404: ApiError, 429: ApiError },
    },
    handler: async (req, reply) => (await compared(req.query, reply)).report,
  });

  app.get('/compare.md', {
    schema: { summary: 'A comparison as Markdown for a pull request', tags: ['compare'], querystring: MarkdownQuery, produces: ['text/markdown'] },
    handler: async (req, reply) => {
      const { report } = await compared(req.query, reply);
      // The links keep the sides as written: a release link follows the release's newest runs.
      const pairs: Array<[string, string]> = [['base', formatRunGroupRef(req.query.base)], ...req.query.head.map((h): [string, string] => ['head', formatRunGroupRef(h)])];
      // …and the noise basis this answer used, so the link reproduces its verdict.
      const asof = req.query.noise_asof ?? report.heads.find((h) => h.noise.history)?.noise.history?.asof;
      if (asof !== undefined) pairs.push(['noise_asof', String(asof)]);
      const qs = new URLSearchParams(pairs).toString();
      const web = req.query.web?.replace(/\/+$/, '');
      const links = web ? { view: markdownLinkTarget(`${web}${req.query.view ?? `/compare?${qs}`}`) ?? undefined, svg: markdownLinkTarget(`${web}/api/v1/compare.svg?${qs}`) ?? undefined } : {};
      // Service, release, run names and the parameter are user strings: compareMarkdown escapes them.
      const markdown = compareMarkdown(report, report.base.parameter, links);
      return reply.type('text/markdown; charset=utf-8').send(markdown);
    },
  });

  app.get('/compare.svg', {
    schema: {
      summary: 'An embeddable SVG overlay of the compared runs; metrics, levels and y as in the web app\'s URLs',
      tags: ['compare'],
      querystring: CompareQuery.extend(SvgViewQuery.shape),
      produces: ['image/svg+xml'],
    },
    handler: async (req, reply) => {
      const { report, details } = await compared(req.query, reply);
      const summary = report.heads.map((h) => h.overall.summary).join(' ');
      return reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'no-cache').send(compareCurveSvg(details, summary, req.query));
    },
  });
};
