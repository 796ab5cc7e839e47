import { embedLevelScale, embedValueAxis } from './axes.ts';
import { formatEmbedTick } from '@kneeboard/contracts/figures';
import { line } from 'd3-shape';
import { escapeXml } from './escape.ts';
import type { CapacityMark, ChartSeries, SeriesPoint, SloThresholdMark } from './types.ts';

export interface PanelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PanelSpec {
  box: PanelBox;
  title: string;
  xLabel: string;
  yLabel: string;
  levels: number[];
  series: ChartSeries[];
  /** Which values of a point to draw; p99 is drawn thinner and fainter than p50. */
  metrics: Array<{ key: keyof Omit<SeriesPoint, 'level' | 'flag'>; faint: boolean }>;
  marker?: { level: number; label: string } | null;
  /** A log y axis (latency spanning decades); values ≤ 0 are then gaps. */
  yLog?: boolean;
  /** Horizontal lines at these values (kept inside the value axis). */
  thresholds?: SloThresholdMark[];
  capacity?: CapacityMark | null;
}

const MARGIN = { top: 28, right: 12, bottom: 40, left: 56 };

/** One chart panel: axes with units, a grid, a line per series and metric, gaps where values are missing. */
export function renderPanel(spec: PanelSpec): string {
  const { box } = spec;
  const x0 = box.x + MARGIN.left;
  const x1 = box.x + box.width - MARGIN.right;
  const y0 = box.y + box.height - MARGIN.bottom;
  const y1 = box.y + MARGIN.top;
  const x = embedLevelScale(spec.levels, [x0, x1]);
  const valueOf = (p: SeriesPoint, key: keyof Omit<SeriesPoint, 'level' | 'flag'>): number | null => {
    const v = p[key] ?? null;
    return v === null || (spec.yLog && v <= 0) ? null : v;
  };
  const thresholds = (spec.thresholds ?? []).filter((t) => Number.isFinite(t.ms) && (!spec.yLog || t.ms > 0));
  const values = [...spec.series.flatMap((s) => s.points.flatMap((p) => spec.metrics.map((m) => valueOf(p, m.key)))), ...thresholds.map((t) => t.ms)].filter((v): v is number => v !== null);
  const { scale: y, ticks: yTicks } = embedValueAxis(values, spec.yLog === true, [y0, y1]);

  const out: string[] = [];
  out.push(`<text x="${box.x + MARGIN.left}" y="${box.y + 16}" class="panel-title">${escapeXml(spec.title)}</text>`);
  for (const t of yTicks) {
    out.push(`<line x1="${x0}" x2="${x1}" y1="${y(t)}" y2="${y(t)}" class="grid"/>`);
    out.push(`<text x="${x0 - 6}" y="${y(t) + 4}" text-anchor="end" class="tick">${formatEmbedTick(t)}</text>`);
  }
  for (const level of spec.levels) {
    out.push(`<text x="${x(level)}" y="${y0 + 16}" text-anchor="middle" class="tick">${formatEmbedTick(level)}</text>`);
  }
  out.push(`<line x1="${x0}" x2="${x1}" y1="${y0}" y2="${y0}" class="axis"/>`);
  out.push(`<text x="${(x0 + x1) / 2}" y="${y0 + 34}" text-anchor="middle" class="label">${escapeXml(spec.xLabel)}</text>`);
  out.push(`<text transform="translate(${box.x + 14} ${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle" class="label">${escapeXml(spec.yLabel)}</text>`);

  const [levelLo, levelHi] = [spec.levels[0] as number, spec.levels[spec.levels.length - 1] as number];
  const capacity = spec.capacity && spec.levels.length > 0 && spec.capacity.level >= levelLo && spec.capacity.level <= levelHi ? spec.capacity : null;
  if (capacity) {
    const cx = x(capacity.level);
    if (capacity.bracket) {
      const bx = x(Math.min(capacity.bracket.to, levelHi));
      out.push(`<rect x="${Math.min(cx, bx)}" y="${y1}" width="${Math.abs(bx - cx)}" height="${y0 - y1}" class="capacity-bracket"/>`);
    }
    out.push(`<g class="capacity" data-level="${capacity.level}"><line x1="${cx}" x2="${cx}" y1="${y1}" y2="${y0}" class="capacity-line"/>`);
    // Read from the line into the bracket, or leftwards where the plot ends.
    const flip = cx + 4 + capacity.label.length * 6.2 > x1;
    out.push(`<text x="${flip ? cx - 4 : cx + 4}" y="${y0 - 6}"${flip ? ' text-anchor="end"' : ''} class="capacity-label">${escapeXml(capacity.label)}</text></g>`);
  }
  for (const t of thresholds) {
    const ty = y(t.ms);
    out.push(`<g class="slo-threshold" data-ms="${t.ms}"><line x1="${x0}" x2="${x1}" y1="${ty}" y2="${ty}" stroke="${escapeXml(t.colour)}" class="slo-line"/>`);
    // The colour as a style: the sheet's `text { fill }` would win over a fill attribute.
    out.push(`<text x="${x1 - 4}" y="${ty - 4}" text-anchor="end" style="fill: ${escapeXml(t.colour)}" class="slo-label">${escapeXml(t.label)}</text></g>`);
  }

  if (spec.marker && spec.levels.length > 0) {
    const mx = x(spec.marker.level);
    out.push(`<line x1="${mx}" x2="${mx}" y1="${y1}" y2="${y0}" class="marker"/>`);
    out.push(`<text x="${mx + 4}" y="${y1 + 10}" class="marker-label">${escapeXml(spec.marker.label)}</text>`);
  }

  for (const s of spec.series) {
    for (const m of spec.metrics) {
      const pts = s.points.filter((p) => valueOf(p, m.key) !== null).sort((a, b) => a.level - b.level);
      const path = line<SeriesPoint>()
        .defined((p) => valueOf(p, m.key) !== null)
        .x((p) => x(p.level))
        .y((p) => y(valueOf(p, m.key) as number))([...s.points].sort((a, b) => a.level - b.level));
      const style = `stroke="${s.colour}" stroke-width="${m.faint ? 1.25 : 2}"${s.dashed ? ' stroke-dasharray="6 4"' : ''}${m.faint ? ' stroke-opacity="0.55"' : ''}`;
      out.push(`<path d="${path ?? ''}" fill="none" ${style} class="series" data-series="${escapeXml(s.label)}" data-metric="${m.key}"/>`);
      for (const p of pts) {
        const v = valueOf(p, m.key) as number;
        if (p.flag) {
          // Hollow with a "!": the number is drawn, but it is the agent's ceiling, not the service's.
          const title = escapeXml(`${s.label} · ${p.level}: ${formatEmbedTick(v)} — not the service's: ${p.flag}`);
          out.push(`<g class="flagged"><circle cx="${x(p.level)}" cy="${y(v)}" r="4.5" fill="#ffffff" stroke="${s.colour}" stroke-width="1.5"><title>${title}</title></circle>`);
          out.push(`<text x="${x(p.level)}" y="${y(v) - 8}" text-anchor="middle" class="flag-mark">!</text></g>`);
          continue;
        }
        out.push(`<circle cx="${x(p.level)}" cy="${y(v)}" r="${m.faint ? 2 : 3}" fill="${s.colour}"${m.faint ? ' fill-opacity="0.55"' : ''}><title>${escapeXml(`${s.label} · ${p.level}: ${formatEmbedTick(v)}`)}</title></circle>`);
      }
    }
  }
  return out.join('\n');
}
