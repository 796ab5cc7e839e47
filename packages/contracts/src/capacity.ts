import { z } from 'zod';
import { Level } from './common.ts';
import { MAX_SLO_TEXT, parseSlos, SLO_HINT, type SloClause } from './slo.ts';

/**
 * `slo=` as a query parameter: one text of comma-separated clauses, or the parameter repeated.
 * Read by parseSlos (slo.ts), the one reader of the syntax; a refusal's message names the clause.
 */
export const SloParam = z
  .union([z.string().max(MAX_SLO_TEXT), z.array(z.string().max(MAX_SLO_TEXT)).max(16)])
  .meta({ description: `Service-level objectives: ${SLO_HINT}. Repeat the parameter or separate clauses with commas.` })
  .transform((value, ctx): SloClause[] => {
    const parsed = parseSlos(value);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }
    return parsed.clauses;
  });

/** `holds`: the interval is entirely within the SLO; `breaks`: entirely outside; `unclear`: it straddles the threshold, or there is too little to say. */
export const SloJudgement = z.enum(['holds', 'breaks', 'unclear']);
export type SloJudgement = z.infer<typeof SloJudgement>;

/**
 * Where a check's interval comes from: `bootstrap` — the percentile of the level's raw latency
 * sample, resampled; `binomial` — a Wilson interval on errors ÷ requests; `point` — no sample to
 * resample (the Server-Timing parts), the curve's value is judged as it is; `none` — nothing
 * measured (no successful request).
 */
export const CapacityBasis = z.enum(['bootstrap', 'binomial', 'point', 'none']);
export type CapacityBasis = z.infer<typeof CapacityBasis>;

/** One SLO at one level. Latencies in ms, errors in percent, as the clause states them. */
export const CapacityCheck = z.object({
  /** The clause's canonical text (`p99<=50ms`). */
  slo: z.string(),
  value: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  basis: CapacityBasis,
  judgement: SloJudgement,
});
export type CapacityCheck = z.infer<typeof CapacityCheck>;

/** A level's judgement over every SLO; `skipped` levels (generator-limited, partial, still running) are never evidence. */
export const CapacityLevel = z.object({
  level: Level,
  qps: z.number().nonnegative(),
  judgement: z.enum(['holds', 'breaks', 'unclear', 'skipped']),
  /** Why the level is skipped; null otherwise. */
  skipped_reason: z.string().nullable(),
  checks: z.array(CapacityCheck),
});
export type CapacityLevel = z.infer<typeof CapacityLevel>;

export const CapacityPoint = z.object({ level: z.number().positive(), qps: z.number().nonnegative() });
export type CapacityPoint = z.infer<typeof CapacityPoint>;

/**
 * The highest load at which every SLO holds, read from a run's measured levels:
 * - `level`/`qps`: the highest level that holds below the first that breaks (null when none holds);
 * - `bracket`: that level, the first that breaks, and the crossing interpolated between them
 *   (linear in level, where the first SLO to break crosses its threshold); `breaks` is null when
 *   no level broke, `holds` null when the lowest measured level already broke;
 * - `unclear_levels` and `skipped_levels`: named, never counted either way.
 */
export const Capacity = z.object({
  slos: z.array(z.string()),
  confidence: z.number().gt(0).lt(1),
  /** Where the latency samples came from: raw rows, the rollup's sketch, or none (point values only). */
  samples: z.enum(['exact', 'rollup', 'none']),
  level: Level.nullable(),
  qps: z.number().nonnegative().nullable(),
  bracket: z.object({ holds: CapacityPoint.nullable(), breaks: CapacityPoint.nullable(), crossing: CapacityPoint.nullable() }),
  unclear_levels: z.array(Level),
  skipped_levels: z.array(z.object({ level: Level, reason: z.string() })),
  levels: z.array(CapacityLevel),
  /** One sentence a reader can check against `levels`. */
  summary: z.string(),
  warnings: z.array(z.string()),
});
export type Capacity = z.infer<typeof Capacity>;

/**
 * What a trusted USL fit and a capacity bracket say about more traffic (`target_qps=`, `current_qps=`):
 * `refused` names why there is no projection (no trusted fit, no capacity), never a guess.
 * Per-instance capacity is an interval (`low`…`high`: the bracket widened by the fit's standard
 * errors); instances are counted from it, under `assumption` (independent instances, same SLO).
 */
export const CapacityProjection = z.object({
  refused: z.string().nullable(),
  assumption: z.string(),
  /** One instance's QPS within the SLOs: the USL at the crossing, and the interval around it; null when refused. */
  per_instance: z
    .object({ qps: z.number().nonnegative(), low: z.number().nonnegative(), high: z.number().nonnegative().nullable() })
    .nullable(),
  /** From `current_qps` to the estimate (and to `low`, the share sure to be free); null without `current_qps` or when refused. */
  headroom: z
    .object({ current_qps: z.number().positive(), qps: z.number(), ratio: z.number(), low_qps: z.number(), low_ratio: z.number() })
    .nullable(),
  /** For `target_qps`: instances at the estimate, and the fewest/most the interval allows (`fewest` null when no level broke: capacity is then only known to be at least `low`). */
  instances: z
    .object({ target_qps: z.number().positive(), needed: z.number().int().positive(), fewest: z.number().int().positive().nullable(), most: z.number().int().positive() })
    .nullable(),
  summary: z.string(),
});
export type CapacityProjection = z.infer<typeof CapacityProjection>;

/** One side's capacity in a comparison: the runs' capacity QPS and the interval they allow. */
export const CapacitySide = z.object({
  /** Runs on the side, and how many of them have a capacity (a level that holds). */
  runs: z.number().int().positive(),
  /** Geometric mean of the runs' capacity QPS; null when a run has none. With repeats judged together (the comparison's pooled decision), the QPS at the level the pooled samples hold. */
  qps: z.number().nonnegative().nullable(),
  /** The level capacity holds at, when one decision was made for the side (one run, or its repeats' samples pooled). Absent where each run was judged alone. */
  level: Level.nullable().optional(),
  /** Where capacity lies: from the runs' brackets (last level that holds … first that breaks), or the repeats' spread. `high` null: no run broke, so no upper bound. */
  low: z.number().nonnegative(),
  high: z.number().nonnegative().nullable(),
});
export type CapacitySide = z.infer<typeof CapacitySide>;

/**
 * Capacity at the same SLOs for base and head (`kneeboard compare --slo …`): the relative change
 * with an interval made on the log scale. `basis`: `repeats` — both sides have two or more runs
 * with a bounded capacity, so the interval is Student's t on the runs' log capacities (each run's
 * bracket width a floor on its noise); `brackets` — from the brackets alone (the lowest head
 * against the highest base and the reverse), the widest honest statement one run per side allows.
 */
export const CapacityChange = z.object({
  slos: z.array(z.string()),
  base: CapacitySide,
  head: CapacitySide,
  change: z.number().nullable(),
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  basis: z.enum(['repeats', 'brackets']),
  summary: z.string(),
});
export type CapacityChange = z.infer<typeof CapacityChange>;
