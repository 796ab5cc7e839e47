/**
 * Prepare a chart for download: the chart's own SVG (serialised in the browser, styles inlined)
 * framed with a title, a subtitle and a legend into one standalone SVG document, which is also
 * what the PNG is drawn from. Pure string work, so the layout is unit-tested.
 */

export interface LegendEntry {
  label: string;
  colour: string;
  /** Dashed line (a base run, a fitted curve); solid otherwise. */
  dashed?: boolean;
  /** A dash pattern of its own (`1 4`: dotted), instead of the base run's dashes. */
  dash?: string;
}

export interface ChartSnapshot {
  width: number;
  height: number;
  /** A serialised `<svg>…</svg>` with its styles inlined. */
  markup: string;
}

export interface ComposeInput {
  title: string;
  subtitle?: string;
  chart: ChartSnapshot;
  legend: ReadonlyArray<LegendEntry>;
}

export const EXPORT_FONT = "-apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const PAD = 16;
const TITLE_SIZE = 15;
const SUB_SIZE = 12;
const LEGEND_SIZE = 12;
const LEGEND_ROW = 20;
/** Average glyph width as a share of the font size, for wrapping without a browser. */
const GLYPH = 0.56;
const SWATCH = 26;

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);
}

/** Words wrapped into lines of at most `maxChars` characters (a longer word gets a line of its own). */
export function wrapText(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

export interface PlacedEntry extends LegendEntry {
  x: number;
  row: number;
}

/** Legend entries left to right, wrapping onto a new row when the next one would not fit. */
export function layoutLegend(entries: ReadonlyArray<LegendEntry>, width: number): PlacedEntry[] {
  const out: PlacedEntry[] = [];
  let x = PAD;
  let row = 0;
  for (const e of entries) {
    const w = SWATCH + 6 + Math.ceil(e.label.length * LEGEND_SIZE * GLYPH) + 18;
    if (x > PAD && x + w > width - PAD) {
      row++;
      x = PAD;
    }
    out.push({ ...e, x, row });
    x += w;
  }
  return out;
}

/** The standalone SVG: title and subtitle on top, the chart, the legend underneath, on white. */
export function composeChartSvg(input: ComposeInput): { svg: string; width: number; height: number } {
  const width = Math.max(320, Math.round(input.chart.width));
  const subLines = input.subtitle ? wrapText(input.subtitle, Math.floor((width - 2 * PAD) / (SUB_SIZE * GLYPH))) : [];
  const header = PAD + TITLE_SIZE + 4 + subLines.length * (SUB_SIZE + 4) + 6;
  const legend = layoutLegend(input.legend, width);
  const rows = legend.length === 0 ? 0 : Math.max(...legend.map((e) => e.row)) + 1;
  const chartTop = header;
  const legendTop = chartTop + Math.round(input.chart.height) + 6;
  const height = legendTop + rows * LEGEND_ROW + (rows > 0 ? PAD - 4 : 0);

  const text: string[] = [`<text x="${PAD}" y="${PAD + TITLE_SIZE - 2}" font-size="${TITLE_SIZE}" font-weight="600" fill="#17202b">${escapeXml(input.title)}</text>`];
  subLines.forEach((line, i) => {
    text.push(`<text x="${PAD}" y="${PAD + TITLE_SIZE + 4 + (i + 1) * (SUB_SIZE + 4) - 3}" font-size="${SUB_SIZE}" fill="#5a6472">${escapeXml(line)}</text>`);
  });
  const items = legend.map((e) => {
    const y = legendTop + e.row * LEGEND_ROW + LEGEND_ROW / 2;
    const pattern = e.dash ?? (e.dashed ? '7 4' : null);
    const dash = pattern ? ` stroke-dasharray="${escapeXml(pattern)}"` : '';
    return (
      `<g class="kb-export-legend"><line x1="${e.x}" x2="${e.x + SWATCH}" y1="${y}" y2="${y}" stroke="${e.colour}" stroke-width="2.5"${dash}/>` +
      `<text x="${e.x + SWATCH + 6}" y="${y + 4}" font-size="${LEGEND_SIZE}" fill="#17202b">${escapeXml(e.label)}</text></g>`
    );
  });
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeXml(EXPORT_FONT)}">`,
    `<title>${escapeXml(input.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...text,
    `<g transform="translate(0, ${chartTop})">${input.chart.markup}</g>`,
    ...items,
    '</svg>',
  ].join('\n');
  return { svg, width, height };
}

/** `kneeboard-fusillade-v1.6.1-vs-v1.6.2-throughput.svg`: safe on every file system. */
export function exportFileName(parts: ReadonlyArray<string>, ext: string): string {
  const slug = parts
    .map((p) => p.trim().replace(/[^\w.@-]+/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, ''))
    .filter(Boolean)
    .join('-')
    .slice(0, 120);
  return `kneeboard-${slug || 'chart'}.${ext}`;
}

/**
 * Markdown and HTML that embed a server-rendered SVG and link to the interactive view; a `caption`
 * (the run's capacity under its SLOs) follows the image as its own paragraph, and `markdownAfter`
 * (Markdown already, e.g. a run's Endpoints section) follows in the Markdown only.
 */
export function embedSnippets(origin: string, imagePath: string, viewPath: string, alt: string, caption?: string, markdownAfter?: string): { imageUrl: string; markdown: string; html: string } {
  const imageUrl = `${origin}${imagePath}`;
  const viewUrl = `${origin}${viewPath}`;
  const mdAlt = alt.replace(/[[\]]/g, '');
  const image = `[![${mdAlt}](${imageUrl})](${viewUrl})`;
  const html = `<a href="${escapeXml(viewUrl)}"><img src="${escapeXml(imageUrl)}" alt="${escapeXml(alt)}" width="960"></a>`;
  return {
    imageUrl,
    markdown: [image, ...(caption ? [markdownText(caption)] : []), ...(markdownAfter ? [markdownAfter] : [])].join('\n\n'),
    html: caption ? `${html}\n<p>${escapeXml(caption)}</p>` : html,
  };
}

/** Plain text as Markdown that renders as typed: `<`, `*`, `_`, brackets and the like escaped. */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+!|<>~]/g, (c) => `\\${c}`);
}
