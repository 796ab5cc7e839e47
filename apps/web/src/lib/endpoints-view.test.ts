import type { EndpointAnalysis } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { endpointOptions, endpointsMarkdown, endpointsSummary, MAX_ENDPOINT_ROWS } from './endpoints-view.ts';

describe('endpointOptions', () => {
  it('puts the busiest first, ties by name, with each share of the named requests', () => {
    const options = endpointOptions([
      { name: 'search', requests: 100 },
      { name: 'cart', requests: 300 },
      { name: 'checkout', requests: 100 },
    ]);
    expect(options.map((o) => o.name)).toEqual(['cart', 'checkout', 'search']);
    expect(options.map((o) => o.share)).toEqual([0.6, 0.2, 0.2]);
  });

  it('gives a share of 0 when no request is counted', () => {
    expect(endpointOptions([{ name: 'a', requests: 0 }])).toEqual([{ name: 'a', requests: 0, share: 0 }]);
  });
});

describe('endpointsSummary', () => {
  const names = Array.from({ length: MAX_ENDPOINT_ROWS + 3 }, (_, i) => ({ name: `e${String(i).padStart(2, '0')}`, requests: 1000 - i }));
  const analysis: EndpointAnalysis = {
    level: 16,
    level_is_knee: true,
    endpoints: names.map((n, i) => ({ ...n, knee_level: i === 2 ? 8 : null, p99_ms: i === 5 ? 400 : 20 })),
    saturates_first: 'e02',
    dominates_p99: 'e05',
    summary: 'e02 saturates first; e05 dominates p99.',
  };

  it('keeps the busiest rows, counts the rest and flags the two the analysis names', () => {
    const view = endpointsSummary(analysis, names);
    expect(view.rows).toHaveLength(MAX_ENDPOINT_ROWS);
    expect(view.more).toBe(3);
    expect(view.rows[0]!.name).toBe('e00');
    expect(view.rows.filter((r) => r.saturatesFirst).map((r) => r.name)).toEqual(['e02']);
    expect(view.rows.filter((r) => r.dominatesP99).map((r) => r.name)).toEqual(['e05']);
    expect(view.rows[2]!.kneeLevel).toBe(8);
    expect(view.rows[5]!.p99Ms).toBe(400);
  });

  it('leaves out names the analysis did not cover', () => {
    const view = endpointsSummary({ ...analysis, endpoints: analysis.endpoints.slice(0, 2) }, names);
    expect(view.rows.map((r) => r.name)).toEqual(['e00', 'e01']);
    expect(view.more).toBe(0);
  });
});

describe('endpointsMarkdown', () => {
  const names = [
    { name: 'search', requests: 6000 },
    { name: 'cart', requests: 2000 },
    { name: 'GET /a|b *x*', requests: 500 },
  ];
  const analysis: EndpointAnalysis = {
    level: 8,
    level_is_knee: true,
    endpoints: [
      { name: 'GET /a|b *x*', requests: 500, knee_level: null, p99_ms: 72 },
      { name: 'cart', requests: 2000, knee_level: 4, p99_ms: 240 },
      { name: 'search', requests: 6000, knee_level: null, p99_ms: 33 },
    ],
    saturates_first: 'cart',
    dominates_p99: 'cart',
    summary: 'cart saturates first: its knee is at concurrency 4. At the run’s knee (concurrency 8) cart dominates p99: 240 ms, against 72.0 ms for GET /a|b *x*.',
  };

  it('says which gives out first and tabulates each endpoint’s requests, own knee and p99, names escaped so they cannot break the table', () => {
    expect(endpointsMarkdown(endpointsSummary(analysis, names), 'concurrency')).toBe(
      [
        '**Endpoints.** cart saturates first: its knee is at concurrency 4. At the run’s knee \\(concurrency 8\\) cart dominates p99: 240 ms, against 72.0 ms for GET /a\\|b \\*x\\*.',
        '',
        '| endpoint | requests | knee (concurrency) | p99 ms at concurrency 8, the run’s knee |',
        '| --- | ---: | ---: | ---: |',
        '| search | 6,000 (71%) | none | 33.0 |',
        '| cart · saturates first · dominates p99 | 2,000 (24%) | 4 | 240 |',
        '| GET /a\\|b \\*x\\* | 500 (5.9%) | none | 72.0 |',
      ].join('\n'),
    );
  });

  it('is null for a run without names, so its Markdown export is unchanged', () => {
    expect(endpointsMarkdown(null, 'concurrency')).toBeNull();
    expect(endpointsMarkdown(endpointsSummary({ ...analysis, endpoints: [] }, []), 'concurrency')).toBeNull();
  });
});
