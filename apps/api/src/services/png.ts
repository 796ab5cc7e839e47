import { Resvg } from '@resvg/resvg-js';

/**
 * PNG embeds: the server-side SVG, rasterised by resvg (Rust, no browser, no native build step —
 * the registry ships the compiled binary per platform). The SVG stays the single drawing; a PNG is
 * only for places that will not show SVG (chat tools, some wikis, e-mail).
 */
export function svgToPng(svg: string, scale: number): Buffer {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    background: '#ffffff',
    // The SVG names generic families; the machine's fonts draw them (text is left out where none are installed).
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}
