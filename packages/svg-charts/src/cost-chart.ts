import { formatCoresUsed, formatEmbedTick, formatLevel, formatQps } from '@kneeboard/contracts/figures';
import { line } from 'd3-shape';
import { embedLevelScale, embedValueAxis, type EmbedScale } from './axes.ts';
import { escapeXml } from './escape.ts';
import { COST_COLOURS } from './palette.ts';
import { STYLE } from './style.ts';

/** One level's cost as drawn: null values are gaps. */
export interface CostChartPoint {
  level: number;
  cores_used: number | null;
  qps_per_core: number | null;
}

export interface CostChartInput {
  title: string;
  /** The verdict on the knee, when there is one. */
  subtitle?: string | null;
  /** The scaling sentence ("threads 1 → 4: 2.14× the throughput for 4.6× the CPU …"). */
  caption?: string | null;
  /** The swept parameter, for the x axis. */
  parameter: string;
  points: CostChartPoint[];
  /** The knee, marked as on the curve. */
  marker?: { level: number; label: string } | null;
  /** Said in the middle of the chart when no level has a figure. */
  empty: string;
  width?: number;
  height?: number;
}

const MARGIN = { top: 16, right: 64, bottom: 40, left: 64 };

type Key = 'cores_used' | 'qps_per_core';
const LINES: ReadonlyArray<{ key: Key; name: string; colour: string; format: (v: number) => string }> = [
  { key: 'cores_used', name: 'cores used', colour: COST_COLOURS.cores, format: (v) => formatCoresUsed(v) },
  { key: 'qps_per_core', name: 'requests/s per core', colour: COST_COLOURS.perCore, format: (v) => `${formatQps(v)}/s` },
];

/**
 * "What it costs" as an embeddable SVG (`cost.svg`, `cost.png`): the run page's chart — the
 * server's cores used (left axis) and requests/s per core (right axis) against the level, the knee
 * marked — drawn on the server without a browser. User text (title, parameter) is escaped.
 */
export function renderCostSvg(input: CostChartInput): string {
  const width = input.width ?? 960;
  const height = input.height ?? 340;
  const lines = [input.subtitle, input.caption].filter((t): t is string => typeof t === 'string' && t.length > 0);
  const headerHeight = 32 + 18 * lines.length;
  const legendHeight = 24;
  const points = [...input.points].sort((a, b) => a.level - b.level);
  const value = (p: CostChartPoint, key: Key) => {
    const v = p[key];
    return v !== null && Number.isFinite(v) ? v : null;
  };
  const drawn = points.filter((p) => LINES.some((l) => value(p, l.key) !== null));

  const x0 = MARGIN.left;
  const x1 = width - MARGIN.right;
  const y0 = height - legendHeight - MARGIN.bottom;
  const y1 = headerHeight + MARGIN.top;
  const header = [
    `<text x="16" y="22" class="title">${escapeXml(input.title)}</text>`,
    ...lines.map((t, i) => `<text x="16" y="${40 + 18 * i}" class="${i === 0 && input.subtitle ? 'subtitle' : 'label'}">${escapeXml(t)}</text>`),
  ];

  let body: string[];
  if (drawn.length === 0) {
    body = [`<text x="${width / 2}" y="${(y0 + y1) / 2}" text-anchor="middle" class="subtitle" data-empty="true">${escapeXml(input.empty)}</text>`];
  } else {
    const levels = points.map((p) => p.level);
    const x = embedLevelScale(levels, [x0, x1]);
    const axes = LINES.map((l) => embedValueAxis(points.map((p) => value(p, l.key)).filter((v): v is number => v !== null), false, [y0, y1]));
    const [cores, perCore] = axes as [{ scale: EmbedScale; ticks: number[] }, { scale: EmbedScale; ticks: number[] }];
    body = [];
    for (const t of cores.ticks) {
      body.push(`<line x1="${x0}" x2="${x1}" y1="${cores.scale(t)}" y2="${cores.scale(t)}" class="grid"/>`);
      body.push(`<text x="${x0 - 6}" y="${cores.scale(t) + 4}" text-anchor="end" class="tick" style="fill: ${COST_COLOURS.cores}">${formatEmbedTick(t)}</text>`);
    }
    for (const t of perCore.ticks) body.push(`<text x="${x1 + 6}" y="${perCore.scale(t) + 4}" class="tick" style="fill: ${COST_COLOURS.perCore}">${formatEmbedTick(t)}</text>`);
    for (const level of levels) body.push(`<text x="${x(level)}" y="${y0 + 16}" text-anchor="middle" class="tick">${formatEmbedTick(level)}</text>`);
    body.push(`<line x1="${x0}" x2="${x1}" y1="${y0}" y2="${y0}" class="axis"/>`);
    body.push(`<text x="${(x0 + x1) / 2}" y="${y0 + 34}" text-anchor="middle" class="label">${escapeXml(input.parameter)}</text>`);
    body.push(`<text transform="translate(16 ${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle" class="label">cores used</text>`);
    body.push(`<text transform="translate(${width - 12} ${(y0 + y1) / 2}) rotate(90)" text-anchor="middle" class="label">req/s per core</text>`);
    const marker = input.marker && input.marker.level >= (levels[0] as number) && input.marker.level <= (levels[levels.length - 1] as number) ? input.marker : null;
    if (marker) {
      const mx = x(marker.level);
      body.push(`<line x1="${mx}" x2="${mx}" y1="${y1}" y2="${y0}" class="marker"/>`);
      body.push(`<text x="${mx + 4}" y="${y1 + 10}" class="marker-label">${escapeXml(marker.label)}</text>`);
    }
    for (const [i, l] of LINES.entries()) {
      const y = (axes[i] as { scale: EmbedScale }).scale;
      const path = line<CostChartPoint>()
        .defined((p) => value(p, l.key) !== null)
        .x((p) => x(p.level))
        .y((p) => y(value(p, l.key) as number))(points);
      body.push(`<path d="${path ?? ''}" fill="none" stroke="${l.colour}" stroke-width="2" class="series" data-metric="${l.key}"/>`);
      for (const p of points) {
        const v = value(p, l.key);
        if (v === null) continue;
        const title = escapeXml(`${input.parameter} ${formatLevel(p.level)}: ${l.format(v)} ${l.key === 'cores_used' ? 'cores used' : 'per core'}`);
        body.push(`<circle cx="${x(p.level)}" cy="${y(v)}" r="3" fill="${l.colour}" data-metric="${l.key}" data-level="${p.level}"><title>${title}</title></circle>`);
      }
    }
  }

  const legend = LINES.map((l, i) => {
    const lx = 16 + i * 190;
    return `<line x1="${lx}" x2="${lx + 24}" y1="${height - 12}" y2="${height - 12}" stroke="${l.colour}" stroke-width="2"/><text x="${lx + 30}" y="${height - 8}" class="legend">${l.name}</text>`;
  }).join('\n');

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(input.title)}">
<style>${STYLE}</style>
<rect width="100%" height="100%" fill="#ffffff"/>
${header.join('\n')}
${body.join('\n')}
${legend}
</svg>
`;
}
