import { z } from 'zod';
import { LevelSelectionParam } from '../level-selection.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';
import { PngScale, RunIdParams } from './runs.ts';

/** The cost embeds' view: which levels to draw, as the web app's `levels=`. */
export const CostViewQuery = z.object({ levels: LevelSelectionParam.optional() });

/** "What it costs" for places outside the web app: the run page's cost chart drawn on the server. */
export const costEmbedEndpoints = {
  runCostSvg: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/cost.svg`,
    scope: 'read',
    share: 'run',
    summary:
      "What it costs as an embeddable SVG: the server's cores used and requests/s per core against the level, the knee marked, the CPU verdict and the scaling sentence above; `levels=` as in the web app's URLs. A run without server metrics draws that sentence in place of the chart",
    tags: ['runs'],
    params: RunIdParams,
    query: CostViewQuery,
    produces: 'image/svg+xml',
  }),
  runCostPng: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/runs/:id/cost.png`,
    scope: 'read',
    share: 'run',
    summary: 'What it costs as a PNG (the cost.svg drawing, rasterised); levels as in cost.svg',
    tags: ['runs'],
    params: RunIdParams,
    query: CostViewQuery.extend(PngScale.shape),
    produces: 'image/png',
  }),
} as const;
