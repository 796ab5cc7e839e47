import { z } from 'zod';
import { CompareQuery, CompareResponse } from '../compare.ts';
import { ApiError } from '../errors.ts';
import { ViewPath } from '../links.ts';
import { SvgViewQuery } from '../svg-view.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';
import { PngScale } from './runs.ts';

export const CompareMarkdownQuery = CompareQuery.extend({
  /** The web app's origin, so the Markdown can link to the interactive view and the embeddable SVG (http or https only). */
  web: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** The view's own path and query, so the link reopens it with its settings. */
  view: ViewPath.optional(),
});

/** A comparison of runs, and the same as files (a share token reads those of runs it names). */
export const compareEndpoints = {
  comparePng: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/compare.png`,
    scope: 'read',
    share: 'compare',
    summary: 'The comparison overlay as a PNG (the compare.svg drawing, rasterised)',
    tags: ['compare'],
    query: CompareQuery.extend(SvgViewQuery.shape).extend(PngScale.shape),
    produces: 'image/png',
  }),
  compare: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/compare`,
    scope: 'read',
    share: 'compare',
    summary:
      'Compare head runs with a base run: per-level deltas with bootstrap intervals and verdicts. A side is a run id, ids of repeated runs (ID,ID,ID) or release:SERVICE@RELEASE (its newest finished runs)',
    tags: ['compare'],
    query: CompareQuery,
    responses: { 200: CompareResponse, 400: ApiError, 404: ApiError, 429: ApiError },
  }),
  compareMarkdown: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/compare.md`,
    scope: 'read',
    share: 'compare',
    summary: 'A comparison as Markdown for a pull request',
    tags: ['compare'],
    query: CompareMarkdownQuery,
    produces: 'text/markdown',
  }),
  compareSvg: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/compare.svg`,
    scope: 'read',
    share: 'compare',
    summary: "An embeddable SVG overlay of the compared runs; metrics, levels and y as in the web app's URLs",
    tags: ['compare'],
    query: CompareQuery.extend(SvgViewQuery.shape),
    produces: 'image/svg+xml',
  }),
} as const;
