/** The embeds' one style sheet (curve.svg, compare.svg, cost.svg): the same type, greys and marks in every chart. */
export const STYLE = `
  text { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; fill: #1f2937; }
  .title { font-size: 15px; font-weight: 600; } .subtitle { font-size: 12px; fill: #6b7280; }
  .panel-title { font-size: 13px; font-weight: 600; } .tick { font-size: 11px; fill: #6b7280; }
  .label { font-size: 12px; fill: #374151; } .legend { font-size: 12px; }
  .grid { stroke: #e5e7eb; } .axis { stroke: #9ca3af; }
  .marker { stroke: #b91c1c; stroke-dasharray: 3 3; } .marker-label { font-size: 11px; fill: #b91c1c; }
  .flag-mark { font-size: 12px; font-weight: 700; fill: #b45309; }
  .slo-line { stroke-width: 1.5; stroke-dasharray: 8 4; } .slo-label { font-size: 11px; font-weight: 600; paint-order: stroke; stroke: #ffffff; stroke-width: 3px; }
  .capacity-line { stroke: #1b7a3e; stroke-width: 2; } .capacity-bracket { fill: #1b7a3e; fill-opacity: 0.08; }
  .capacity-label { font-size: 11px; font-weight: 600; fill: #1b7a3e; paint-order: stroke; stroke: #ffffff; stroke-width: 3px; }
  .caption { font-size: 12px; font-weight: 600; fill: #145c2f; }`;
