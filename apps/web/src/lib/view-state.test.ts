import { levelSelectionContains, parseLevelSelection } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import {
  compareApiQuery,
  compareViewPath,
  DEFAULT_SETTINGS,
  parseCompareView,
  parseRunView,
  rangeSelection,
  runViewPath,
  type CompareViewState,
  type SearchParams,
} from './view-state.ts';

const BASE = '00000000-0000-4000-8000-000000000001';
const H1 = '00000000-0000-4000-8000-000000000002';
const H2 = '00000000-0000-4000-8000-000000000003';

/** What Next hands a page: repeated keys become arrays. */
function params(path: string): SearchParams {
  const out: SearchParams = {};
  for (const [k, v] of new URL(path, 'http://x').searchParams) {
    const cur = out[k];
    out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
  return out;
}

function compare(path: string): CompareViewState {
  const parsed = parseCompareView(params(path));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.state;
}

describe('levels= in a page URL', () => {
  // The syntax and its table live in the contracts (level-selection.test.ts); the API's SVG routes
  // read it through the same parser (apps/api/test/curve-svg-levels.int.test.ts checks these texts).
  it('is read by the contracts parser: 0, a range above its end and duplicates as the SVG routes read them', () => {
    for (const text of ['0', '0-4', '1,0,2', '64-4', '16,4,1,4', '4-64', '-64', '8']) {
      expect(parseRunView(BASE, params(`/?levels=${text}`)).levels, text).toEqual(parseLevelSelection(text));
    }
  });

  it('shows every level when the text cannot be read, rather than failing the page', () => {
    for (const text of ['0', '0-4', '64-4', 'lots']) expect(parseRunView(BASE, params(`/?levels=${text}`)).levels, text).toBeNull();
    expect(runViewPath(parseRunView(BASE, params('/?levels=0')))).toBe(`/runs/${BASE}`);
  });

  it('writes one spelling: a list sorted without repeats', () => {
    expect(runViewPath(parseRunView(BASE, params('/?levels=16,4,1,4')))).toBe(`/runs/${BASE}?levels=1,4,16`);
  });

  it('says which levels are visible', () => {
    const range = parseLevelSelection('4-64');
    expect([1, 4, 32, 64, 128].filter((l) => levelSelectionContains(range, l))).toEqual([4, 32, 64]);
    expect(levelSelectionContains(null, 1000)).toBe(true);
  });
});

describe('compare view state', () => {
  it('reads runs and settings, in any parameter order', () => {
    const s = compare(`/compare?levels=4-64&y=log&head=${H1}&metrics=p99&base=${BASE}&head=${H2}&x=linear&fit=1&min_effect=0.1`);
    expect(s).toEqual({
      base: BASE,
      heads: [H1, H2],
      metrics: ['p99_ms'],
      x: 'linear',
      y: 'log',
      fit: true,
      levels: { kind: 'range', min: 4, max: 64 },
      minEffect: 0.1,
    });
  });

  it('writes a canonical URL that reads back to the same state', () => {
    const s = compare(`/compare?levels=4-64&y=log&head=${H1}&metrics=p999,p99&base=${BASE}&head=${H2}&fit=0`);
    const path = compareViewPath(s);
    expect(path).toBe(`/compare?base=${BASE}&head=${H1}&head=${H2}&metrics=p99,p999&y=log&fit=0&levels=4-64`);
    expect(compare(path)).toEqual(s);
    expect(compareViewPath(s, 'review')).toBe(path.replace('/compare', '/review'));
  });

  it('leaves defaults out of the URL', () => {
    const s = compare(`/compare?base=${BASE}&head=${H1}`);
    expect(s).toEqual({ ...DEFAULT_SETTINGS, base: BASE, heads: [H1], minEffect: 0.05 });
    expect(compareViewPath(s)).toBe(`/compare?base=${BASE}&head=${H1}`);
    expect(compareViewPath({ ...s, metrics: [] })).toBe(`/compare?base=${BASE}&head=${H1}&metrics=none`);
    expect(compare(`/compare?base=${BASE}&head=${H1}&metrics=none`).metrics).toEqual([]);
  });

  it('falls back to defaults for unreadable settings, but not for unreadable runs', () => {
    const s = compare(`/compare?base=${BASE}&head=${H1}&x=sideways&y=&fit=maybe&levels=lots&metrics=p42&min_effect=7`);
    expect(s).toEqual({ ...DEFAULT_SETTINGS, base: BASE, heads: [H1], minEffect: 0.05 });
    expect(parseCompareView(params('/compare'))).toMatchObject({ ok: false, empty: true });
    expect(parseCompareView(params(`/compare?base=${BASE}`))).toMatchObject({ ok: false, empty: false, error: expect.stringContaining('at least one head') });
    expect(parseCompareView(params(`/compare?base=nope&head=${H1}`))).toMatchObject({ ok: false, error: expect.stringContaining('the base is not readable') });
    expect(parseCompareView(params(`/compare?base=release:svc&head=${H1}`))).toMatchObject({ ok: false, empty: false, error: expect.stringContaining('release:SERVICE@RELEASE') });
    const eight = Array.from({ length: 8 }, (_, i) => `head=00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`).join('&');
    expect(parseCompareView(params(`/compare?base=${BASE}&${eight}`))).toMatchObject({ ok: false, error: expect.stringContaining('at most 7') });
  });

  it('reads groups of repeats and releases, and writes them back readably', () => {
    const s = compare(`/compare?base=${BASE},${H1}&head=release:check out@v1.2&levels=2-8`);
    expect(s.base).toBe(`${BASE},${H1}`);
    expect(s.heads).toEqual(['release:check out@v1.2']);
    expect(compareViewPath(s)).toBe(`/compare?base=${BASE},${H1}&head=release:check%20out@v1.2&levels=2-8`);
    expect(parseCompareView(params(compareViewPath(s)))).toEqual({ ok: true, state: s });
    expect(parseCompareView(params(`/compare?base=${BASE},${BASE}&head=${H1}`))).toMatchObject({ ok: false, error: expect.stringContaining('twice') });
  });

  it('drops heads that repeat the base or each other', () => {
    expect(compare(`/compare?base=${BASE}&head=${H1}&head=${BASE}&head=${H1}&head=${H2}`).heads).toEqual([H1, H2]);
  });

  it('gives the API only what the statistics depend on', () => {
    const s = compare(`/compare?base=${BASE}&head=${H1}&y=log&min_effect=0.1`);
    expect(compareApiQuery(s)).toBe(`?base=${BASE}&head=${H1}&min_effect=0.1`);
    expect(compareApiQuery({ ...s, minEffect: 0.05 })).toBe(`?base=${BASE}&head=${H1}`);
  });
});

describe('rangeSelection (zoom)', () => {
  it('keeps open ends at the extremes and clears a range that covers every level', () => {
    const levels = [1, 2, 4, 8, 16];
    expect(rangeSelection(levels, 8, 2)).toEqual({ kind: 'range', min: 2, max: 8 });
    expect(rangeSelection(levels, 1, 4)).toEqual({ kind: 'range', min: null, max: 4 });
    expect(rangeSelection(levels, 16, 1)).toBeNull();
  });
});

describe('run view state', () => {
  it('round-trips the run page toggles', () => {
    const s = parseRunView(BASE, params('/?metrics=p90,p50&x=log&y=log&fit=0&levels=1,2,4'));
    expect(s).toEqual({ id: BASE, metrics: ['p50_ms', 'p90_ms'], x: 'log', y: 'log', fit: false, levels: { kind: 'list', levels: [1, 2, 4] } });
    const path = runViewPath(s);
    expect(path).toBe(`/runs/${BASE}?metrics=p50,p90&x=log&y=log&fit=0&levels=1,2,4`);
    expect(parseRunView(BASE, params(path))).toEqual(s);
    expect(runViewPath(parseRunView(BASE, {}))).toBe(`/runs/${BASE}`);
  });
});

describe('svgViewPairs', () => {
  it('carries only what the embeddable SVG understands, so the image matches the view', async () => {
    const { svgViewPairs, DEFAULT_SETTINGS } = await import('./view-state.ts');
    expect(svgViewPairs(DEFAULT_SETTINGS)).toEqual([]);
    expect(svgViewPairs({ ...DEFAULT_SETTINGS, metrics: ['p99_ms'], x: 'linear', y: 'log', fit: true, levels: { kind: 'range', min: 4, max: 64 } })).toEqual([
      ['metrics', 'p99'],
      ['y', 'log'],
      ['levels', '4-64'],
    ]);
    expect(svgViewPairs({ ...DEFAULT_SETTINGS, metrics: [] })).toEqual([]);
  });
});

describe('slo= on the comparison', () => {
  it('keeps the SLOs in the URL and in the API query; the base run’s tag (not in the URL) is given to the query by the caller', () => {
    const s = compare(`/compare?base=${BASE}&head=${H1}&slo=${encodeURIComponent('p99 <= 0.05s')}`);
    expect(s.slo).toBe('p99<=50ms');
    expect(compareViewPath(s)).toBe(`/compare?base=${BASE}&head=${H1}&slo=p99%3C%3D50ms`);
    expect(compare(compareViewPath(s))).toEqual(s);
    expect(compareApiQuery(s)).toBe(`?base=${BASE}&head=${H1}&slo=p99%3C%3D50ms`);
    const plain = compare(`/compare?base=${BASE}&head=${H1}`);
    expect(compareApiQuery(plain)).toBe(`?base=${BASE}&head=${H1}`);
    expect(compareApiQuery(plain, 'p99<=40ms')).toBe(`?base=${BASE}&head=${H1}&slo=p99%3C%3D40ms`);
    // slo=none: none, not even the tag; an unreadable one falls back to the default.
    const none = compare(`/compare?base=${BASE}&head=${H1}&slo=none`);
    expect([none.slo, compareApiQuery(none)]).toEqual(['none', `?base=${BASE}&head=${H1}`]);
    expect(compare(`/compare?base=${BASE}&head=${H1}&slo=p98<=1ms`).slo).toBeUndefined();
  });
});

describe('slo= on the run page', () => {
  it('keeps the SLOs canonical, "none" as none, and drops what does not parse (the default: the run\'s tag)', () => {
    const s = parseRunView(BASE, params('/?slo=p99%20<=%200.05s,errors<=1%25'));
    expect(s.slo).toBe('p99<=50ms,errors<=1%');
    const path = runViewPath(s);
    expect(path).toBe(`/runs/${BASE}?slo=p99%3C%3D50ms,errors%3C%3D1%25`);
    expect(parseRunView(BASE, params(path))).toEqual(s);
    expect(parseRunView(BASE, params('/?slo=none')).slo).toBe('none');
    for (const bad of ['p98<=50ms', 'p99<=50', '']) expect(parseRunView(BASE, params(`/?slo=${encodeURIComponent(bad)}`)).slo ?? null, bad).toBeNull();
    expect(runViewPath(parseRunView(BASE, params('/?slo=p98<=50ms')))).toBe(`/runs/${BASE}`);
  });
});

describe('name= on the run page', () => {
  it('keeps a request name exactly (spaces, slashes, braces) through the URL, and drops one the API would refuse', () => {
    const s = parseRunView(BASE, params(`/?y=log&name=${encodeURIComponent(' GET /cart/{id} & more')}`));
    expect(s.name).toBe(' GET /cart/{id} & more');
    const path = runViewPath(s);
    expect(path).toBe(`/runs/${BASE}?y=log&name=%20GET%20%2Fcart%2F%7Bid%7D%20%26%20more`);
    expect(parseRunView(BASE, params(path))).toEqual(s);
    for (const bad of ['', 'a\u0007b', 'x'.repeat(201)]) expect(parseRunView(BASE, params(`/?name=${encodeURIComponent(bad)}`)).name, JSON.stringify(bad)).toBeUndefined();
    expect(runViewPath(parseRunView(BASE, {}))).toBe(`/runs/${BASE}`);
  });
});
