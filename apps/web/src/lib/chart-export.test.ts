import { describe, expect, it } from 'vitest';
import { composeChartSvg, embedSnippets, escapeXml, exportFileName, layoutLegend, wrapText } from './chart-export.ts';

const chart = { width: 600, height: 300, markup: '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><path d="M0,0L1,1" stroke="#0072B2"/></svg>' };

describe('composeChartSvg', () => {
  it('frames the chart with its title, subtitle and a legend, escaped', () => {
    const { svg, width, height } = composeChartSvg({
      title: 'fusillade: v1.6.1 vs v1.6.2 <throughput>',
      subtitle: 'successful requests per second',
      chart,
      legend: [
        { label: 'v1.6.1 (base)', colour: '#0072B2', dashed: true },
        { label: 'v1.6.2', colour: '#D55E00' },
      ],
    });
    expect(width).toBe(600);
    expect(height).toBeGreaterThan(300 + 40);
    expect(svg).toContain('&lt;throughput&gt;');
    expect(svg).toContain(chart.markup);
    expect(svg.match(/<line [^>]*stroke="#0072B2" stroke-width="2.5" stroke-dasharray="7 4"/g)?.length).toBe(1);
    expect(svg.match(/<line [^>]*stroke="#D55E00" stroke-width="2.5"\/>/g)?.length).toBe(1);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('wraps a long subtitle and legend onto more lines and rows', () => {
    expect(wrapText('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    const many = Array.from({ length: 8 }, (_, i) => ({ label: `release v${i}.0.0 (nightly)`, colour: '#000' }));
    const placed = layoutLegend(many, 600);
    expect(Math.max(...placed.map((p) => p.row))).toBeGreaterThan(0);
    expect(placed.every((p) => p.x >= 16)).toBe(true);
    const short = composeChartSvg({ title: 't', chart, legend: many.slice(0, 1) });
    const tall = composeChartSvg({ title: 't', subtitle: 'word '.repeat(80), chart, legend: many });
    expect(tall.height).toBeGreaterThan(short.height + 40);
  });
});

describe('export helpers', () => {
  it('names files safely', () => {
    expect(exportFileName(['fusillade', 'v1.6.1 vs v1.6.2', 'p99 latency'], 'png')).toBe('kneeboard-fusillade-v1.6.1-vs-v1.6.2-p99-latency.png');
    expect(exportFileName(['', '/'], 'svg')).toBe('kneeboard-chart.svg');
  });

  it('escapes XML', () => {
    expect(escapeXml(`a<b & "c" 'd'>`)).toBe('a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;');
  });

  it('writes embed snippets for a server-rendered SVG', () => {
    const s = embedSnippets('https://kb.example', '/api/v1/compare.svg?base=a&head=b', '/compare?base=a&head=b', 'v1 vs v2 [latency]');
    expect(s.imageUrl).toBe('https://kb.example/api/v1/compare.svg?base=a&head=b');
    expect(s.markdown).toBe('[![v1 vs v2 latency](https://kb.example/api/v1/compare.svg?base=a&head=b)](https://kb.example/compare?base=a&head=b)');
    expect(s.html).toBe('<a href="https://kb.example/compare?base=a&amp;head=b"><img src="https://kb.example/api/v1/compare.svg?base=a&amp;head=b" alt="v1 vs v2 [latency]" width="960"></a>');
  });

  it('carries the capacity line under the image, as text that cannot become markup', () => {
    const line = 'Capacity under p99<=50ms: 1,840 req/s at work_[x] 24 (bracket 24–32).';
    const s = embedSnippets('https://kb.example', '/api/v1/runs/r/curve.svg?slo=p99%3C%3D50ms', '/runs/r?slo=p99%3C%3D50ms', 'svc v1', line);
    expect(s.markdown).toBe('[![svc v1](https://kb.example/api/v1/runs/r/curve.svg?slo=p99%3C%3D50ms)](https://kb.example/runs/r?slo=p99%3C%3D50ms)\n\nCapacity under p99\\<=50ms: 1,840 req/s at work\\_\\[x\\] 24 \\(bracket 24–32\\).');
    expect(s.html.split('\n')[1]).toBe('<p>Capacity under p99&lt;=50ms: 1,840 req/s at work_[x] 24 (bracket 24–32).</p>');
  });

  it('puts a run’s Endpoints section after the image and the capacity line in the Markdown only; without it the snippets are as before', () => {
    const args = ['https://kb.example', '/api/v1/runs/r/curve.svg', '/runs/r', 'svc v1', 'Capacity: 10 req/s.'] as const;
    const plain = embedSnippets(...args);
    expect(embedSnippets(...args, undefined)).toEqual(plain);
    const named = embedSnippets(...args, '**Endpoints.** cart saturates first.');
    expect(named.markdown).toBe(`${plain.markdown}\n\n**Endpoints.** cart saturates first.`);
    expect(named.html).toBe(plain.html);
    expect(embedSnippets('https://kb.example', '/x.svg', '/x', 'x', undefined, 'E').markdown).toBe('[![x](https://kb.example/x.svg)](https://kb.example/x)\n\nE');
  });
});
