import { capacityUnderSlos, projectCapacity } from '@kneeboard/analysis';
import { levelFlags, seedFrom } from '@kneeboard/analysis/compare';
import { queryComparisonSamples, type Db } from '@kneeboard/clickhouse';
import type { Capacity, CapacityProjection, RunAnalysis, RunDetail, SloClause } from '@kneeboard/contracts';

/**
 * Capacity under SLOs for a run as it stands. The percentiles' intervals resample the same
 * material a comparison does (queryComparisonSamples): a 20,000-request random sample of raw rows
 * per level, or, for runs whose curve came from the rollup, 20,000 evenly spaced ranks of each
 * level's merged DDSketch (within 0.5%). The levels a comparison calls not comparable
 * (levelFlags: the agent's own generator-limited or partial-step flag, Little's law) are skipped.
 * Seeded by the run id, so one run and one SLO always give one answer.
 */
export async function runCapacity(db: Db, detail: RunDetail, slos: readonly SloClause[]): Promise<Capacity> {
  const { samples, source } = await queryComparisonSamples(db, detail.run.id, detail.percentiles ?? 'rollup');
  return capacityUnderSlos({
    curve: detail.curve,
    slos,
    parameter: detail.run.parameter,
    samples,
    samplesSource: source,
    flags: levelFlags(detail.curve, detail.analysis.littles_law, detail.run.parameter),
    seed: seedFrom(detail.run.id, 'capacity'),
  });
}

/** The projection (headroom, instances for a target) from the run's own USL fit and trust, as the analysis judged them. */
export function projectRunCapacity(analysis: RunAnalysis, capacity: Capacity, at: { targetQps?: number | undefined; currentQps?: number | undefined }): CapacityProjection {
  return projectCapacity({
    usl: analysis.usl,
    uslTrusted: analysis.usl_trusted,
    uslUntrustedReason: analysis.usl_untrusted_reason ?? null,
    capacity,
    ...(at.targetQps !== undefined ? { targetQps: at.targetQps } : {}),
    ...(at.currentQps !== undefined ? { currentQps: at.currentQps } : {}),
  });
}
