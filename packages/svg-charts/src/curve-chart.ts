import { escapeXml } from './escape.ts';
import { renderPanel } from './panel.ts';
import { STYLE } from './style.ts';
import type { CurveChartInput, LatencyKey } from './types.ts';

/**
 * A self-contained SVG of a latency-versus-load curve (or an overlay of runs): throughput on the
 * left, latency percentiles on the right (p50 solid and p99 faint by default), the knee marked. Rendered on the server
 * without a browser, for READMEs, wikis and pull requests.
 */
const NAMES: Record<LatencyKey, string> = { p50_ms: 'p50', p90_ms: 'p90', p99_ms: 'p99', p999_ms: 'p99.9' };

function latencyTitle(keys: LatencyKey[]): string {
  const [first, ...rest] = keys.map((k) => NAMES[k]);
  return rest.length === 0 ? `Latency: ${first}` : `Latency: ${first} (solid) and ${rest.join(', ')} (faint)`;
}

export function renderCurveSvg(input: CurveChartInput): string {
  const latency = input.latency && input.latency.length > 0 ? input.latency : (['p50_ms', 'p99_ms'] as LatencyKey[]);
  const width = input.width ?? 960;
  const height = input.height ?? 380;
  const headerHeight = (input.subtitle ? 48 : 32) + (input.caption ? 16 : 0);
  const legendHeight = 24;
  const levels = [...new Set(input.series.flatMap((s) => s.points.map((p) => p.level)))].sort((a, b) => a - b);
  const panelHeight = height - headerHeight - legendHeight;
  const half = width / 2;

  const legend = input.series
    .map((s, i) => {
      const lx = 16 + i * 170;
      const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
      return `<line x1="${lx}" x2="${lx + 24}" y1="${height - 12}" y2="${height - 12}" stroke="${s.colour}" stroke-width="2"${dash}/><text x="${lx + 30}" y="${height - 8}" class="legend">${escapeXml(s.label)}</text>`;
    })
    .join('\n');
  const flagged = input.series.some((s) => s.points.some((p) => p.flag));
  const flagNote = flagged
    ? `<text x="${width - 16}" y="${height - 8}" text-anchor="end" class="legend"><tspan class="flag-mark">!</tspan> hollow: the load generator was the limit there, not the service</text>`
    : '';

  const body =
    levels.length === 0
      ? `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="subtitle">no measured levels yet</text>`
      : [
          renderPanel({
            box: { x: 0, y: headerHeight, width: half, height: panelHeight },
            title: 'Throughput',
            xLabel: input.parameter,
            yLabel: 'throughput (req/s)',
            levels,
            series: input.series,
            metrics: [{ key: 'qps', faint: false }],
            marker: input.marker,
            capacity: input.capacity ?? null,
          }),
          renderPanel({
            box: { x: half, y: headerHeight, width: half, height: panelHeight },
            title: latencyTitle(latency),
            xLabel: input.parameter,
            yLabel: input.yScale === 'log' ? 'latency (ms, log)' : 'latency (ms)',
            levels,
            series: input.series,
            metrics: latency.map((key, i) => ({ key, faint: i > 0 })),
            marker: input.marker,
            yLog: input.yScale === 'log',
            thresholds: input.thresholds ?? [],
          }),
        ].join('\n');

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(input.title)}">
<style>${STYLE}</style>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="16" y="22" class="title">${escapeXml(input.title)}</text>
${input.subtitle ? `<text x="16" y="40" class="subtitle">${escapeXml(input.subtitle)}</text>` : ''}
${input.caption ? `<text x="16" y="${input.subtitle ? 58 : 42}" class="caption">${escapeXml(input.caption)}</text>` : ''}
${body}
${legend}
${flagNote}
</svg>
`;
}
