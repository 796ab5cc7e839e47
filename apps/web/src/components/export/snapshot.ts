/**
 * Browser-only: turn a drawn Recharts `<svg>` into a standalone file. The chart's look comes partly
 * from the page's stylesheet (fonts, colours set by CSS), which a file does not have, so each
 * element's computed presentation style is written inline on a copy; interactive bits (the hover
 * cursor and highlighted dot) are left out. The PNG is the same SVG drawn onto a canvas.
 */
import { composeChartSvg, EXPORT_FONT, type ChartSnapshot, type ComposeInput } from '../../lib/chart-export.ts';

const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'stroke-linecap',
  'stroke-linejoin',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
  'visibility',
] as const;

const DROP = '.recharts-tooltip-cursor, .recharts-active-dot, .recharts-tooltip-wrapper';

function inlineStyles(source: Element, copy: Element): void {
  const computed = getComputedStyle(source);
  const style = STYLE_PROPS.map((p) => {
    const v = computed.getPropertyValue(p);
    return v ? `${p}:${p === 'font-family' && /system-ui/.test(v) ? EXPORT_FONT : v}` : '';
  })
    .filter(Boolean)
    .join(';');
  if (style) copy.setAttribute('style', style);
  const from = source.children;
  const to = copy.children;
  for (let i = 0; i < from.length && i < to.length; i++) inlineStyles(from[i] as Element, to[i] as Element);
}

export function snapshotSvg(svg: SVGSVGElement): ChartSnapshot {
  const box = svg.getBoundingClientRect();
  const width = Number(svg.getAttribute('width')) || Math.round(box.width);
  const height = Number(svg.getAttribute('height')) || Math.round(box.height);
  const copy = svg.cloneNode(true) as SVGSVGElement;
  inlineStyles(svg, copy);
  for (const el of copy.querySelectorAll(DROP)) el.remove();
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  copy.removeAttribute('tabindex');
  return { width, height, markup: new XMLSerializer().serializeToString(copy) };
}

export function chartSvgFile(svg: SVGSVGElement, frame: Omit<ComposeInput, 'chart'>): { svg: string; width: number; height: number } {
  return composeChartSvg({ ...frame, chart: snapshotSvg(svg) });
}

/** Draws the SVG at `scale`× onto a white canvas and encodes it as PNG. */
export async function svgToPng(svg: string, width: number, height: number, scale = 2): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml;charset=utf-8' }));
  try {
    const img = new Image();
    img.decoding = 'sync';
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the chart could not be drawn as an image'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas in this browser');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Saves a blob under a file name, the way a link with `download` does. */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
