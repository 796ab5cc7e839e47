import { z } from 'zod';

export const LatencyMetric = z.enum(['p50', 'p90', 'p99', 'p999']);
export type LatencyMetric = z.infer<typeof LatencyMetric>;

/**
 * How an embedded SVG is drawn, in the same words as the web app's URLs, so an embed can match the
 * view it came from: `metrics=p99`, `levels=4-64` (or `4-`, `-64`, or a list `1,2,4`), `y=log`.
 */
export const SvgViewQuery = z.object({
  metrics: z
    .string()
    .meta({ pattern: '^\\s*(p50|p90|p99|p999)\\s*(,\\s*(p50|p90|p99|p999)\\s*){0,3}$' })
    .transform((s) => s.split(',').map((m) => m.trim()))
    .pipe(z.array(LatencyMetric).min(1).max(4))
    .optional(),
  levels: z
    .string()
    .regex(/^(\d+(\.\d+)?)?-(\d+(\.\d+)?)?$|^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'a range such as 4-64, 4- or -64, or a list such as 1,2,4')
    .optional(),
  y: z.enum(['linear', 'log']).optional(),
});
export type SvgViewQuery = z.infer<typeof SvgViewQuery>;

/** Whether a level is inside a `levels` selection (absent: every level is). */
export function levelSelected(selection: string | undefined, level: number): boolean {
  if (selection === undefined) return true;
  if (!selection.includes('-')) return selection.split(',').map(Number).includes(level);
  const [lo, hi] = selection.split('-');
  return (lo === '' || level >= Number(lo)) && (hi === '' || level <= Number(hi));
}
