import { z } from 'zod';
import { LevelSelectionParam } from './level-selection.ts';

export const LatencyMetric = z.enum(['p50', 'p90', 'p99', 'p999']);
export type LatencyMetric = z.infer<typeof LatencyMetric>;

/**
 * The words of a `metrics=` list (`p50,p99`, spaces ignored), read the same way by the web app's
 * URLs and the API's embeds. Each word is then a LatencyMetric or not: the API refuses a list with
 * an unknown word (400), the web app leaves the word out (a link still opens).
 */
export function metricTokens(text: string): string[] {
  return text.split(',').map((m) => m.trim());
}

/**
 * How an embedded SVG is drawn, in the same words as the web app's URLs, so an embed can match the
 * view it came from: `metrics=p99`, `levels=4-64` (read by LevelSelectionParam, as the web app reads it), `y=log`.
 */
export const SvgViewQuery = z.object({
  metrics: z
    .string()
    .meta({ pattern: '^\\s*(p50|p90|p99|p999)\\s*(,\\s*(p50|p90|p99|p999)\\s*){0,3}$' })
    .transform(metricTokens)
    .pipe(z.array(LatencyMetric).min(1).max(4))
    .optional(),
  levels: LevelSelectionParam.optional(),
  y: z.enum(['linear', 'log']).optional(),
});
export type SvgViewQuery = z.infer<typeof SvgViewQuery>;
