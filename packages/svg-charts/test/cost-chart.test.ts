import { describe, expect, it } from 'vitest';
import { COST_COLOURS, renderCostSvg } from '../src/index.ts';

const points = [
  { level: 1, cores_used: 1, qps_per_core: 50_590 },
  { level: 2, cores_used: 2.1, qps_per_core: 38_000 },
  { level: 4, cores_used: 4.6, qps_per_core: 23_507 },
];

describe('renderCostSvg', () => {
  it('draws cores used and requests/s per core against the level, a dot per figure, the knee, both axes named', () => {
    const svg = renderCostSvg({ title: 'crystal mt', parameter: 'threads', points, marker: { level: 2, label: 'knee · 2' }, empty: 'none' });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/class="series"/g)).toHaveLength(2);
    expect(svg).toContain(`stroke="${COST_COLOURS.cores}" stroke-width="2" class="series" data-metric="cores_used"`);
    expect(svg).toContain(`stroke="${COST_COLOURS.perCore}" stroke-width="2" class="series" data-metric="qps_per_core"`);
    expect(svg.match(/<circle/g)).toHaveLength(6);
    expect(svg).toContain('>cores used</text>');
    expect(svg).toContain('>req/s per core</text>');
    expect(svg).toContain('>threads</text>');
    expect(svg).toContain('knee · 2');
    expect(svg).toContain('<title>threads 4: 4.6 cores used</title>');
    expect(svg).toContain('<title>threads 4: 23,507/s per core</title>');
    expect(svg).not.toContain('data-empty');
  });

  it('escapes every user string: title, parameter, verdict and caption', () => {
    const svg = renderCostSvg({ title: '<script>alert(1)</script>', parameter: 'a"b<c>', subtitle: 'x & <y>', caption: "it's <z>", points, empty: '<none>' });
    expect(svg).not.toMatch(/<script|<c>|<y>|<z>/);
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).toContain('a&quot;b&lt;c&gt;');
    expect(svg).toContain('x &amp; &lt;y&gt;');
    expect(svg).toContain('it&apos;s &lt;z&gt;');
  });

  it('leaves a gap where a level has no CPU figure, and says so when no level has one', () => {
    const gappy = points.map((p) => (p.level === 2 ? { ...p, cores_used: null, qps_per_core: null } : p));
    const svg = renderCostSvg({ title: 't', parameter: 'threads', points: gappy, empty: 'none' });
    const cores = /d="([^"]*)"[^>]*data-metric="cores_used"/.exec(svg)?.[1] ?? '';
    expect(cores.match(/M/g)).toHaveLength(2);
    expect(svg.match(/<circle/g)).toHaveLength(4);

    const empty = renderCostSvg({ title: 't', parameter: 'threads', points: [], empty: 'No server metrics in this run' });
    expect(empty).toContain('data-empty="true">No server metrics in this run</text>');
    expect(empty).not.toContain('class="series"');
  });
});
