import type { XAxisProps, YAxisProps } from 'recharts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { formatCompact } from '../../lib/format.ts';
import type { YAxisSpec } from '../../lib/curve-series.ts';
import { levelDomain, levelTicks, type ScaleKind } from '@kneeboard/chart-prep';

/** Shared look of the run page's charts, so the three plots line up and read as one figure. */
export const CHART_HEIGHT = 290;
/** The top margin holds the knee's tag above the plot, so the tag never covers a point. */
export const CHART_MARGIN = { top: 26, right: 18, bottom: 22, left: 14 };
export const AXIS_TICK = { fontSize: 11, fill: '#5a6472' };
export const AXIS_LINE = { stroke: '#c5ccd6' };
export const GRID_STROKE = '#e9ecf0';
export const AXIS_LABEL_STYLE = { fontSize: 12, fill: '#3d4754', fontWeight: 500 };
export const Y_AXIS_WIDTH = 64;

/** A chart fills its panel's width (on screen), or has a fixed size (the printed review). */
export function chartSize(width: number | undefined, height = CHART_HEIGHT) {
  return width === undefined ? { responsive: true, style: { width: '100%', height } } : { width, height };
}

/** The level axis as every chart draws it: levels as ticks, the swept parameter as its label. */
export function levelAxisProps(parameter: string) {
  return {
    dataKey: 'level',
    tickFormatter: formatLevel,
    tick: AXIS_TICK,
    axisLine: AXIS_LINE,
    tickLine: AXIS_LINE,
    label: { value: parameter, position: 'bottom', offset: 4, style: AXIS_LABEL_STYLE },
  } satisfies XAxisProps;
}

/** A numeric level axis (linear or log) whose domain and ticks were prepared in `lib/`, drawn exactly as given. */
export interface LevelAxisSpec {
  parameter: string;
  scale: ScaleKind;
  domain: [number, number];
  ticks: number[];
}

/** The run page's level axis: its own levels, on the chosen scale. */
export function runLevelAxis(parameter: string, rows: ReadonlyArray<{ level: number }>, scale: ScaleKind): LevelAxisSpec {
  const levels = rows.map((r) => r.level);
  return { parameter, scale, domain: levelDomain(levels, scale), ticks: levelTicks(levels) };
}

export function numericLevelAxisProps({ parameter, scale, domain, ticks }: LevelAxisSpec) {
  return { ...levelAxisProps(parameter), type: 'number', scale, domain, ticks, allowDataOverflow: true } satisfies XAxisProps;
}

/** An axis with nothing to scale (no drawable value): the panel shows its empty state over it. */
const NO_AXIS: YAxisSpec = { domain: [0, 1], ticks: [] };

/**
 * The measured value's axis: its unit in a vertical label, compact ticks, the prepared domain. A
 * `scale` chosen by the view (linear or log) is drawn exactly on that domain (`allowDataOverflow`);
 * without one the axis is Recharts' default linear one.
 */
export interface ValueAxisSpec {
  label: string;
  axis: YAxisSpec | null;
  scale?: ScaleKind;
}

export function valueAxisProps({ label, axis, scale }: ValueAxisSpec) {
  const { domain, ticks } = axis ?? NO_AXIS;
  return {
    type: 'number',
    ...(scale === undefined ? {} : { scale, allowDataOverflow: true }),
    domain,
    ticks,
    tickFormatter: formatCompact,
    width: Y_AXIS_WIDTH,
    tick: AXIS_TICK,
    axisLine: AXIS_LINE,
    tickLine: AXIS_LINE,
    label: { value: label, angle: -90, position: 'insideLeft', offset: 4, style: { ...AXIS_LABEL_STYLE, textAnchor: 'middle' } },
  } satisfies YAxisProps;
}
