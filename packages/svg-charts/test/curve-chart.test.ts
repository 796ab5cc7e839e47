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

  it('draws an SLO threshold on the latency panel and the capacity with its bracket on the throughput panel, escaped', () => {
    const series = [{ label: 'v1', colour: '#000', dashed: false, points }];
    const svg = renderCurveSvg({
      title: 't',
      parameter: 'concurrency',
      series,
      thresholds: [{ ms: 500, label: 'p99 ≤ 500 ms', colour: '#d55e00' }],
      capacity: { level: 4, label: 'capacity · 200 req/s <c>', bracket: { from: 4, to: 8 } },
      caption: 'Capacity under p99<=500ms: 200 req/s at concurrency 4 (bracket 4–8)',
    });
    const plain = renderCurveSvg({ title: 't', parameter: 'concurrency', series });
    expect(plain).not.toContain('slo-threshold');
    expect(plain).not.toContain('class="capacity"');
    expect(svg).toContain('Capacity under p99&lt;=500ms: 200 req/s at concurrency 4 (bracket 4–8)');
    expect(svg).toContain('capacity · 200 req/s &lt;c&gt;');

    // The capacity line stands where the throughput panel draws level 4 (its point at 200 req/s),
    // and the bracket runs from there to level 8's point.
    const cx = Number(/<g class="capacity" data-level="4"><line x1="([\d.]+)"/.exec(svg)?.[1]);
    const qpsPoints = [...svg.matchAll(/<circle cx="([\d.]+)" cy="[\d.]+"[^>]*><title>v1 · (\d+): /g)].slice(0, points.length);
    const xAt = (level: number) => Number(qpsPoints.find((m) => m[2] === String(level))?.[1]);
    expect(cx).toBeCloseTo(xAt(4), 6);
    const bracket = /<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*class="capacity-bracket"/.exec(svg);
    expect(Number(bracket?.[1])).toBeCloseTo(xAt(4), 6);
    expect(Number(bracket?.[1]) + Number(bracket?.[2])).toBeCloseTo(xAt(8), 6);

    // The threshold is above every measured latency (p99 tops at 112 ms): the axis grows to hold it,
    // and the line sits in the latency panel (the right half).
    const ty = Number(/<g class="slo-threshold" data-ms="500"><line x1="([\d.]+)" x2="[\d.]+" y1="([\d.]+)"/.exec(svg)?.[2]);
    const tx = Number(/<g class="slo-threshold" data-ms="500"><line x1="([\d.]+)"/.exec(svg)?.[1]);
    expect(tx).toBeGreaterThan(480);
    const latencyTicks = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" text-anchor="end" class="tick">([\d,]+)<\/text>/g)].filter((m) => Number(m[1]) > 480);
    const top = latencyTicks.reduce((a, m) => Math.max(a, Number((m[3] ?? '').replace(/,/g, ''))), 0);
    expect(top).toBeGreaterThanOrEqual(500);
    expect(ty).toBeGreaterThan(0);
    // Level 16's p99 (112 ms) is drawn lower on the page (larger y) than the 500 ms line.
    const p99At16 = [...svg.matchAll(/<circle cx="[\d.]+" cy="([\d.]+)"[^>]*><title>v1 · 16: 112<\/title>/g)];
    expect(p99At16.length).toBe(1);
    expect(Number(p99At16[0]?.[1])).toBeGreaterThan(ty);
  });

  it('leaves the capacity out when its level is outside the levels drawn', () => {
    const svg = renderCurveSvg({ title: 't', parameter: 'c', series: [{ label: 'a', colour: '#000', dashed: false, points }], capacity: { level: 64, label: 'capacity', bracket: null } });
    expect(svg).not.toContain('class="capacity"');
  });

  it('says so when there is nothing to draw yet', () => {
    expect(renderCurveSvg({ title: 't', parameter: 'c', series: [] })).toContain('no measured levels yet');
  });
});
