import { z } from 'zod';
import { EpochMs, Level, RunId } from './common.ts';
import { KneeBracket } from './analysis.ts';
import { CapacityChange, SloParam } from './capacity.ts';
import { EventName } from './events.ts';
import { Run } from './run.ts';

export const MAX_COMPARED_HEADS = 7;

/**
 * `no significant change` unless the 95% interval of the relative change excludes 0 *and* the
 * change is at least `min_effect` (default 5%): a run-to-run wobble on a noisy machine is not news.
 */
export const ChangeVerdict = z.enum(['regression', 'improvement', 'no significant change', 'insufficient data', 'not comparable']);
export type ChangeVerdict = z.infer<typeof ChangeVerdict>;

export const CompareMetric = z.enum(['qps', 'p50_ms', 'p99_ms']);
export type CompareMetric = z.infer<typeof CompareMetric>;

export const MetricDelta = z.object({
  base: z.number().nullable(),
  head: z.number().nullable(),
  /** head ÷ base − 1. */
  change: z.number().nullable(),
  /**
   * Interval of the relative change, made on the log of head ÷ base (never below −100%): the
   * run-to-run spread (pooled across levels and both sides, or borrowed from earlier repeats) plus
   * each run's sampling noise, Student's t for the runs behind the spread; at
   * 1 − (1 − confidence)/(3 × levels compared + 1), so that all the comparison's verdicts together
   * hold at the stated confidence.
   */
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  verdict: ChangeVerdict,
});
export type MetricDelta = z.infer<typeof MetricDelta>;

/**
 * Why one side's numbers at a level are not the service's: the agent was the limit (generator-limited)
 * or the step did not run to the end. Such a level gets the verdict `not comparable`, never a change.
 */
export const LevelFlag = z.object({
  side: z.enum(['base', 'head']),
  run_id: RunId,
  /** One sentence, from the agent's own health check or the Little's-law check. */
  reason: z.string(),
});
export type LevelFlag = z.infer<typeof LevelFlag>;

export const LevelComparison = z.object({
  level: Level,
  in_base: z.boolean(),
  in_head: z.boolean(),
  /** Empty when both sides measured the service; otherwise every verdict at this level is `not comparable`. */
  flags: z.array(LevelFlag),
  qps: MetricDelta,
  p50_ms: MetricDelta,
  p99_ms: MetricDelta,
});
export type LevelComparison = z.infer<typeof LevelComparison>;

export const OverallComparison = z.object({
  /** Peak QPS of each run (at its own best level). */
  max_qps: MetricDelta.extend({ base_level: Level.nullable(), head_level: Level.nullable() }),
  knee: z.object({
    base: Level.nullable(),
    head: Level.nullable(),
    change: z.number().nullable(),
    /** Where each knee can be, given the levels swept: the grid points either side of it. */
    base_bracket: KneeBracket.nullable(),
    head_bracket: KneeBracket.nullable(),
    /** The two knees differ by no more than the grid can tell apart (their brackets overlap). */
    within_grid: z.boolean(),
  }),
  /** p99 at the level where the base run's knee is: what users at the old capacity now see. */
  p99_at_base_knee: MetricDelta.extend({ level: Level.nullable() }),
  /** `regression` whenever the per-level table has a significant regression, whatever improved: the headline never contradicts the table. */
  verdict: ChangeVerdict,
  /** One sentence for a pull request or a review; it names every significant regression of the table. */
  summary: z.string(),
  /** The table's significant regressions, level by level (what the summary names). Absent in reports made before it existed. */
  regressions: z.array(z.object({ level: Level, metric: CompareMetric, change: z.number().nullable(), ci_low: z.number().nullable(), ci_high: z.number().nullable() })).optional(),
});
export type OverallComparison = z.infer<typeof OverallComparison>;

/**
 * What the intervals can see. With repeated runs on a side they resample runs, then requests within
 * them (hierarchical bootstrap), so run-to-run noise is inside the interval; with one run per side
 * they can only see it if earlier repeats of the service measured it (`history`).
 */
export const NoiseBasis = z.object({
  base_runs: z.number().int().positive(),
  head_runs: z.number().int().positive(),
  basis: z.enum(['repeats', 'history', 'within-run only']),
  /** Run-to-run spread (relative standard deviation) applied to single runs, when known from history. */
  run_to_run: z.object({ qps: z.number(), p50_ms: z.number(), p99_ms: z.number(), df: z.number().int() }).nullable(),
  /** One sentence for the reader. */
  note: z.string(),
  /** How the intervals were made: method, runs per side, the spread's degrees of freedom. Absent in reports made before it existed. */
  method: z.string().optional(),
  /** The run-to-run spread each metric's intervals used (relative SD, its degrees of freedom, whether the stated floor set it); null where none was estimated. */
  spread: z.record(CompareMetric, z.object({ sd: z.number(), df: z.number(), floored: z.boolean() }).nullable()).optional(),
  /** The earlier repeats a single-run side borrowed: their run ids, and the cut-off (a finish time, epoch ms) they were read as of — `noise_asof` reproduces it. */
  history: z.object({ runs: z.array(RunId), asof: EpochMs }).nullable().optional(),
  /** A newer basis than the pinned one exists: how many more finished runs it would read, and its cut-off. Offered, never used unasked. */
  newer: z.object({ runs: z.number().int().positive(), asof: EpochMs }).nullable().optional(),
});
export type NoiseBasis = z.infer<typeof NoiseBasis>;

/** A relative change of one figure, head against base: the sides' values, head ÷ base − 1, its interval (null where none can be made). */
export const FigureChange = z.object({
  base: z.number().nullable(),
  head: z.number().nullable(),
  change: z.number().nullable(),
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
});
export type FigureChange = z.infer<typeof FigureChange>;

/**
 * What a level's change cost the server, where both sides have server metrics there: the QPS
 * change (the level's own `qps` delta, interval included) against the change in CPU cores used.
 */
export const LevelCostChange = z.object({
  level: Level,
  qps: FigureChange,
  /** Cores used (the mean of the measured window; a group's geometric mean over its runs). The interval needs two or more runs a side. */
  cores_used: FigureChange,
  /** QPS per core used: (1 + QPS change) ÷ (1 + CPU change) − 1; no interval of its own. */
  qps_per_core: FigureChange,
  /** The level's verdicts are `not comparable` (an agent was the limit): the figures are shown, never called. */
  not_comparable: z.boolean(),
  /** `+8% [+5%…+11%] QPS for +31% CPU at 64`. */
  sentence: z.string(),
});
export type LevelCostChange = z.infer<typeof LevelCostChange>;

export const CostComparison = z.object({
  levels: z.array(LevelCostChange),
  /** Where the CPU intervals come from: two or more runs a side with metrics at a level (`repeats`), or none (`single run`). */
  basis: z.enum(['repeats', 'single run']),
  /** One sentence on how the figures were made. */
  note: z.string(),
});
export type CostComparison = z.infer<typeof CostComparison>;

export const HeadComparison = z.object({
  /** The head group's first run; `runs` has them all. */
  run: Run,
  runs: z.array(Run).min(1),
  noise: NoiseBasis,
  levels: z.array(LevelComparison),
  overall: OverallComparison,
  /** Capacity at the query's SLOs (`slo=`), base against this head; absent without `slo=`. */
  capacity: CapacityChange.optional(),
  /** Cost changes per level where both sides have server metrics; absent when none does. */
  cost: CostComparison.optional(),
});
export type HeadComparison = z.infer<typeof HeadComparison>;

export const CompareSettings = z.object({
  confidence: z.number(),
  min_effect: z.number(),
  resamples: z.number().int(),
  /**
   * Where the bootstrap's latencies came from: `exact` — a random sample of stored values;
   * `rollup` — quantiles of the rollup's DDSketch states (large runs), each within 0.5%.
   * Absent in reports made before it existed.
   */
  samples: z.enum(['exact', 'rollup']).optional(),
});

/** One endpoint's change for one head: the verdict of that name's own comparison, and the figure that says it. */
export const EndpointHeadChange = z.object({
  verdict: ChangeVerdict,
  /** The largest significant change in the verdict's direction (p99 first, then p50, then QPS); null without one. */
  change: z.object({ metric: CompareMetric, level: Level, change: z.number().nullable(), ci_low: z.number().nullable(), ci_high: z.number().nullable() }).nullable(),
  /** `checkout: faster (−18% p99 at 64)`. */
  sentence: z.string(),
});
export type EndpointHeadChange = z.infer<typeof EndpointHeadChange>;

/**
 * Per endpoint, without `name=`, when every compared run carries request names: each name all of
 * them have (the busiest first, at most `MAX_COMPARED_NAMES`), compared on its own curve and samples.
 */
export const EndpointChanges = z.object({
  names: z.array(z.object({ name: z.string(), requests: z.number().int().nonnegative(), heads: z.array(EndpointHeadChange) })),
  /** Names every run has beyond the ones compared. */
  omitted: z.number().int().nonnegative(),
});
export type EndpointChanges = z.infer<typeof EndpointChanges>;

/** The most names compared one by one in a comparison's per-endpoint summary: each is a bootstrap per head. */
export const MAX_COMPARED_NAMES = 20;

export const CompareResponse = z.object({
  /** The base group's first run; `base_runs` has them all. */
  base: Run,
  base_runs: z.array(Run).min(1),
  heads: z.array(HeadComparison),
  settings: CompareSettings,
  /** With `name=`: the request name whose curves were compared (absent for whole runs). */
  name: z.string().optional(),
  /** Without `name=`, when every run carries names: each shared name's verdict (absent otherwise). */
  endpoints: EndpointChanges.optional(),
});
export type CompareResponse = z.infer<typeof CompareResponse>;

export const MAX_RUNS_PER_GROUP = 10;

/** How a side names "every run of a release": `release:SERVICE@RELEASE`. */
export const RELEASE_REF_PREFIX = 'release:';

/**
 * One side of a comparison, as written in a URL or on the command line: run ids (`ID` or
 * `ID,ID,ID`, repeats compared as a group) or a release (`release:SERVICE@RELEASE`, the newest
 * finished runs of that release, at most MAX_RUNS_PER_GROUP). The release form splits at the last
 * `@`, so a service name may contain `@` and a release may not.
 */
export type RunGroupRef = { kind: 'runs'; ids: string[] } | { kind: 'release'; service: string; release: string };

/** `release:SERVICE@RELEASE` → its parts; null when the text is not that form (or a part is empty). */
export function parseReleaseRef(text: string): { service: string; release: string } | null {
  if (!text.startsWith(RELEASE_REF_PREFIX)) return null;
  const rest = text.slice(RELEASE_REF_PREFIX.length);
  const at = rest.lastIndexOf('@');
  if (at < 0) return null;
  const service = rest.slice(0, at).trim();
  const release = rest.slice(at + 1).trim();
  return service === '' || release === '' ? null : { service, release };
}

/** The ref as a URL or CLI writes it (the inverse of the parameter's parsing). */
export function formatRunGroupRef(ref: RunGroupRef): string {
  return ref.kind === 'runs' ? ref.ids.join(',') : `${RELEASE_REF_PREFIX}${ref.service}@${ref.release}`;
}

/** zod's own run-id pattern, without its anchors, to spell a group of them in the OpenAPI document. */
const RUN_ID_PATTERN = String((z.toJSONSchema(RunId) as { pattern?: string }).pattern).replace(/^\^|\$$/g, '');
/** The text of a side, as the OpenAPI document states it; the transform below checks it again (and duplicates). */
const RunGroupText = z.string().meta({
  pattern: `^\\s*((${RUN_ID_PATTERN})(\\s*,\\s*(${RUN_ID_PATTERN})){0,${MAX_RUNS_PER_GROUP - 1}}|release:[\\s\\S]*\\S[\\s\\S]*@[^@]*[^@\\s][^@]*)\\s*$`,
});

/** `ID`, `ID,ID,ID` or `release:SERVICE@RELEASE`. */
export const RunGroupParam = RunGroupText.transform((raw, ctx): RunGroupRef => {
  const s = raw.trim();
  if (s.startsWith(RELEASE_REF_PREFIX)) {
    const ref = parseReleaseRef(s);
    if (ref === null) {
      ctx.addIssue({ code: 'custom', message: `a release is written ${RELEASE_REF_PREFIX}SERVICE@RELEASE` });
      return z.NEVER;
    }
    return { kind: 'release', ...ref };
  }
  const ids = s.split(',').map((id) => id.trim());
  const parsed = z.array(RunId).min(1).max(MAX_RUNS_PER_GROUP, `at most ${MAX_RUNS_PER_GROUP} runs in a group`).safeParse(ids);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    ctx.addIssue({ code: 'custom', message: issue?.code === 'too_big' ? issue.message : `not a run id, a list of run ids or ${RELEASE_REF_PREFIX}SERVICE@RELEASE` });
    return z.NEVER;
  }
  if (new Set(ids).size !== ids.length) {
    ctx.addIssue({ code: 'custom', message: 'a run appears twice in one group' });
    return z.NEVER;
  }
  return { kind: 'runs', ids: parsed.data };
});

export const CompareQuery = z.object({
  base: RunGroupParam,
  head: z
    .union([RunGroupText, z.array(RunGroupText).min(1).max(MAX_COMPARED_HEADS)])
    .transform((h) => (Array.isArray(h) ? h : [h]))
    .pipe(z.array(RunGroupParam).min(1).max(MAX_COMPARED_HEADS, `compare at most ${MAX_COMPARED_HEADS} heads with one base`)),
  /** Smallest relative change worth calling, 0–1 (0.05 = 5%). */
  min_effect: z.coerce.number().min(0).max(1).default(0.05),
  /**
   * Pins the run-to-run noise a single-run side borrows: only earlier repeats finished at or before
   * this time (epoch ms) count, so a permalink keeps its verdict as repeats accumulate. A report
   * says the cut-off it used (`noise.history.asof`); without it, the newest basis is used.
   */
  noise_asof: z.coerce.number().int().positive().max(4_102_444_800_000).optional(),
  /** Capacity at these SLOs for base and each head (`p99<=50ms,errors<=1%`, or the parameter repeated); a bad clause is a 400 naming it. */
  slo: SloParam.optional(),
  /** One request name's curves compared instead of the whole runs' (every compared run must carry it). */
  name: EventName.refine((v) => v !== '', 'must not be empty: leave name= out for the whole runs')
    .optional()
    .meta({ description: "Compare one request name's curves (an entry of each run's `names`) instead of the whole runs'" }),
});
export type CompareQuery = z.infer<typeof CompareQuery>;
