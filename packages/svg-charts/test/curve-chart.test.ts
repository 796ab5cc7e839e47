import { describe, expect, it } from 'vitest';
import { renderCurveSvg } from '../src/index.ts';

const points = [1, 2, 4, 8, 16].map((level) => ({ level, qps: Math.min(level, 4) * 50, p50_ms: Math.max(20, level * 5), p99_ms: Math.max(25, level * 7) }));

describe('renderCurveSvg', () => {
  it('draws a line per series and metric, the knee, units on both axes, and escapes user text', () => {
    const svg = renderCurveSvg({
      title: 'checkout <v2> & friends',
      parameter: 'concurrency',
      series: [
        { label: 'v1.0', colour: '#111111', dashed: true, points },
        { label: 'v1.1', colour: '#222222', dashed: false, points },
      ],
      marker: { level: 4, label: 'knee · 4' },
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('checkout &lt;v2&gt; &amp; friends');
    expect(svg.match(/class="series"/g)).toHaveLength(6);
    expect(svg.match(/data-series="v1.0"[^>]*data-metric="qps"/g)).toHaveLength(1);
    expect(svg.match(/stroke-dasharray="6 4" stroke-width|stroke-width="[\d.]+" stroke-dasharray="6 4"/g)?.length ?? 0).toBeGreaterThan(0);
    expect(svg).toContain('throughput (req/s)');
    expect(svg).toContain('latency (ms)');
    expect(svg).toContain('knee · 4');
    expect(svg.match(/<circle/g)).toHaveLength(2 * 3 * points.length);
  });

  it('leaves a gap where a value is missing instead of drawing zero', () => {
    const gappy = points.map((p) => (p.level === 4 ? { ...p, p99_ms: null } : p));
    const svg = renderCurveSvg({ title: 't', parameter: 'threads', series: [{ label: 'a', colour: '#000', dashed: false, points: gappy }] });
    const p99Path = /d="([^"]*)"[^>]*data-metric="p99_ms"/.exec(svg)?.[1] ?? '';
    expect(p99Path.match(/M/g)).toHaveLength(2);
  });

  it('says so when there is nothing to draw yet', () => {
    expect(renderCurveSvg({ title: 't', parameter: 'c', series: [] })).toContain('no measured levels yet');
  });
});
