import { scaleLinear, scaleLog, type ScaleContinuousNumeric } from 'd3-scale';
import { defaultXScale } from '@kneeboard/chart-prep';

/**
 * The axes of the server-rendered embeds (`curve.svg`, `curve.png`, `compare.svg`). When a level
 * axis is log is chart-prep's rule (`defaultXScale`, the span rule: an embed always holds a finished
 * set of levels); what is drawn here is the embed's picture: d3's "nice" axes, padded a little so
 * no point sits on the frame. The page's axes (chart-prep's `levelDomain`, `linearAxis`,
 * `logAxis`) are tighter because the page zooms and its reader hovers exact values; the embeds
 * already published keep their look.
 */
export type EmbedScale = ScaleContinuousNumeric<number, number>;

/** The level axis of an embed: log₂ over exactly the swept range for a geometric sweep, a nice linear one otherwise. */
export function embedLevelScale(levels: ReadonlyArray<number>, range: [number, number]): EmbedScale {
  const lo = Math.min(...levels);
  const hi = Math.max(...levels);
  if (defaultXScale(levels) === 'log') return scaleLog().base(2).domain([lo, hi]).range(range);
  return scaleLinear().domain(lo === hi ? [lo - 1, hi + 1] : [lo, hi]).range(range).nice();
}

/**
 * A value axis of an embed and its gridlines. Linear: from 0 to 5% above the top value. Log (the
 * values are positive: zero and below are gaps, never drawn): from 0.8 × the lower of the lowest
 * value and 1 to 1.25 × the highest, whole decades after `nice()`, gridlines on the 1-2-5 values
 * of 1 and above.
 */
export function embedValueAxis(values: ReadonlyArray<number>, log: boolean, range: [number, number]): { scale: EmbedScale; ticks: number[] } {
  if (log) {
    const scale = scaleLog().domain([Math.min(...values, 1) * 0.8, Math.max(1, ...values) * 1.25]).range(range).nice();
    return { scale, ticks: scale.ticks(5).filter((t) => /^[125]/.test(String(t))) };
  }
  const scale = scaleLinear().domain([0, Math.max(1, ...values) * 1.05]).range(range).nice();
  return { scale, ticks: scale.ticks(5) };
}
