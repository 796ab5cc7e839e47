import { z } from 'zod';
import { ServerMetricSource, type ServerMetricsBatch } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';

/**
 * A run's server metrics (issue 28): per-second values in kb_server_metrics_v1, per-step source and
 * notes in kb_server_metric_steps_v1. Both are ReplacingMergeTree keyed so that writing a second
 * again replaces it: read with FINAL, a value is never counted twice.
 */

/** One step's stored metrics, what the cost figures are computed from. */
export interface StoredStepMetrics {
  level: number;
  source: ServerMetricSource;
  cores_available: number | null;
  notes: string[];
  /** metric alias → its fn and per-second values, oldest first. */
  series: Map<string, { fn: 'rate' | 'mean' | 'max'; points: Array<{ second: number; value: number }> }>;
}

/** A run's metrics read at most: 64 levels × 16 metrics × 10 minutes a step. */
const MAX_POINTS_READ = 64 * 16 * 600;

export async function insertServerMetrics(db: Db, runId: string, batch: ServerMetricsBatch): Promise<void> {
  // Points first: a step row without its points would read as a step with no samples.
  if (batch.points.length > 0) {
    const rows = batch.points.map((p) => ({ run_id: runId, level: batch.level, metric: p.metric, second: p.second, fn: p.fn, value: p.value }));
    await db.writes.run(() => db.client.insert({ table: 'kb_server_metrics_v1', values: rows, format: 'JSONEachRow', clickhouse_settings: insertSettings() }));
  }
  const step = { run_id: runId, level: batch.level, source: batch.source, cores_available: batch.cores_available, notes: batch.notes };
  await db.writes.run(() => db.client.insert({ table: 'kb_server_metric_steps_v1', values: [step], format: 'JSONEachRow', clickhouse_settings: insertSettings() }));
}

const StepRow = z.object({ level: z.number(), source: ServerMetricSource, cores_available: z.number().nullable(), notes: z.array(z.string()) });
const PointRow = z.object({ level: z.number(), metric: z.string(), fn: z.enum(['rate', 'mean', 'max']), second: z.coerce.number(), value: z.number() });

/** Every step's metrics of a run, by level (ascending); empty when the run has none. */
export async function queryServerMetrics(db: Db, runId: string): Promise<StoredStepMetrics[]> {
  const [steps, points] = await Promise.all([
    db.client.query({
      query: 'SELECT level, source, cores_available, notes FROM kb_server_metric_steps_v1 FINAL WHERE run_id = {run_id:UUID} ORDER BY level',
      query_params: { run_id: runId },
      format: 'JSONEachRow',
    }),
    db.client.query({
      query: `SELECT level, metric, fn, second, value FROM kb_server_metrics_v1 FINAL WHERE run_id = {run_id:UUID}
              ORDER BY level, metric, second LIMIT {limit:UInt32}`,
      query_params: { run_id: runId, limit: MAX_POINTS_READ },
      format: 'JSONEachRow',
    }),
  ]);
  const byLevel = new Map<number, StoredStepMetrics>();
  for (const s of z.array(StepRow).parse(await steps.json())) byLevel.set(s.level, { ...s, series: new Map() });
  for (const p of z.array(PointRow).parse(await points.json())) {
    const step = byLevel.get(p.level);
    if (!step) continue; // points whose step row is not written yet (a post in flight)
    let series = step.series.get(p.metric);
    if (!series) step.series.set(p.metric, (series = { fn: p.fn, points: [] }));
    series.points.push({ second: p.second, value: p.value });
  }
  return [...byLevel.values()];
}
