import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { levelSelectionContains, parseLevelSelection } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

/**
 * The embeddable SVGs read `levels=` as the web app's pages read it (both through the contracts'
 * parseLevelSelection): a text the page cannot read is a 400 here, and a text it can read draws
 * exactly the levels the page shows. The syntax's full table is in the contracts' tests.
 */
let api: TestApi;
const LEVELS = [1, 2, 4, 8, 16];
let base = '';
let head = '';
beforeAll(async () => {
  api = await startTestApi();
  base = await storeSyntheticRun(api.url, { seed: 71, release: 'v1', service: 'svg-levels', levels: LEVELS });
  head = await storeSyntheticRun(api.url, { seed: 72, release: 'v2', service: 'svg-levels', levels: LEVELS });
});
afterAll(async () => api.close());

// A zero (as a level, a range's end, in a list), a range whose start is above its end, repeats, and plain readable views.
const TEXTS = ['0', '0-4', '1,0,2', '64-4', '16,4,1,4', '2-8', '-2', '8-'];

const routes = () => [
  { name: 'curve.svg', path: `/api/v1/runs/${base}/curve.svg?metrics=p99`, runs: 1 },
  { name: 'compare.svg', path: `/api/v1/compare.svg?base=${base}&head=${head}&metrics=p99`, runs: 2 },
];

describe('levels= on the SVG routes', () => {
  it.each(TEXTS)('answers %j as the web app parses it', async (text) => {
    const selection = parseLevelSelection(text);
    for (const route of routes()) {
      const res = await fetch(`${api.url}${route.path}&levels=${text}`);
      if (selection === null) {
        expect(res.status, `${route.name} ${text}`).toBe(400);
        expect(((await res.json()) as { field: string }).field, route.name).toMatch(/^querystring\.levels/);
        continue;
      }
      expect(res.status, `${route.name} ${text}`).toBe(200);
      const shown = LEVELS.filter((l) => levelSelectionContains(selection, l));
      // One throughput dot and one p99 dot per shown level, per run.
      expect((await res.text()).match(/<circle/g) ?? [], `${route.name} ${text}`).toHaveLength(2 * shown.length * route.runs);
    }
  });

  it('pins the decisions: 0 and a range above its end are refused, repeats are one level', () => {
    expect(TEXTS.filter((t) => parseLevelSelection(t) === null)).toEqual(['0', '0-4', '1,0,2', '64-4']);
    expect(parseLevelSelection('16,4,1,4')).toEqual({ kind: 'list', levels: [1, 4, 16] });
  });
});
