import { z } from 'zod';
import { Level, Millis } from './common.ts';
import { CurvePoint } from './curve.ts';
import { LoadModel } from './run.ts';

/**
 * How a knee was found:
 * - `kneedle`: where the throughput curve bends (Satopää et al. 2011), confirmed by growth
 *   slowing to under a third of proportional above it.
 * - `latency`: the last level before p50 grows in proportion to the load (pure queueing).
 * - `usl_peak`: N* of the USL fit, where fitted throughput is highest.
 * - `open_saturation`: open loop, the last offered rate the server still achieved (within 5%).
 * - `open_p99`: open loop, where p99 bends upward.
 */
export const KneeMethod = z.enum(['kneedle', 'latency', 'usl_peak', 'open_saturation', 'open_p99']);
export type KneeMethod = z.infer<typeof KneeMethod>;

/** The knee lies somewhere between two swept levels; a coarse grid cannot say where. */
export const KneeBracket = z.object({ low: Level, high: Level });
export type KneeBracket = z.infer<typeof KneeBracket>;

export const Knee = z.object({
  level: Level,
  method: KneeMethod,
  /** The swept levels either side of the knee: it is somewhere in (low, high]. Null at the grid's ends. */
  bracket: KneeBracket.nullable().optional(),
  /** One plain sentence a reader can check against the table. */
  reason: z.string(),
});
export type Knee = z.infer<typeof Knee>;

/** `amdahl`: coherency κ is negligible in the measured range; `linear`: contention σ is too. */
export const UslModel = z.enum(['usl', 'amdahl', 'linear']);
export type UslModel = z.infer<typeof UslModel>;

/** X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted by least squares on measured throughput. */
export const UslFit = z.object({
  lambda: z.number().positive(),
  sigma: z.number().min(0).max(1),
  kappa: z.number().nonnegative(),
  /** Asymptotic standard errors, √diag(s²·(JᵀJ)⁻¹); null when there are no spare degrees of freedom. */
  lambda_se: z.number().nonnegative().nullable(),
  sigma_se: z.number().nonnegative().nullable(),
  kappa_se: z.number().nonnegative().nullable(),
  r2: z.number().max(1),
  /** N* = √((1−σ)/κ) for `usl`; null for `amdahl` and `linear` (no peak). */
  peak_level: z.number().positive().nullable(),
  /** X(N*) for `usl`; the asymptote λ/σ for `amdahl` (approached, never reached); null for `linear`. */
  peak_qps: z.number().positive().nullable(),
  model: UslModel,
});
export type UslFit = z.infer<typeof UslFit>;

export const UslCurvePoint = z.object({ level: Level, qps: z.number().nonnegative() });
export type UslCurvePoint = z.infer<typeof UslCurvePoint>;

/** X(N) ÷ (N × per-unit baseline); 1 is perfectly linear scaling. */
export const EfficiencyPoint = z.object({ level: Level, efficiency: z.number().nonnegative() });
export type EfficiencyPoint = z.infer<typeof EfficiencyPoint>;

export const LatencySource = z.enum(['in_flight', 'mean', 'p50']);
export type LatencySource = z.infer<typeof LatencySource>;

/**
 * Little's law at one closed-loop level: in-flight = QPS × mean latency should equal the
 * configured concurrency. Falling short by more than 10% means the generator, not the server,
 * may be the ceiling.
 */
export const LittlesLawCheck = z.object({
  level: Level,
  in_flight: z.number().nonnegative(),
  /** in_flight ÷ level. */
  ratio: z.number().nonnegative(),
  /** `in_flight` measured by the agent, or QPS × mean, or QPS × p50 when no mean was given. */
  source: LatencySource,
  generator_limited: z.boolean(),
});
export type LittlesLawCheck = z.infer<typeof LittlesLawCheck>;

export const RunAnalysis = z.object({
  knee: Knee.nullable(),
  /** Every method's answer, the chosen knee included, as evidence. */
  knee_candidates: z.array(Knee),
  usl: UslFit.nullable(),
  /**
   * Whether the analysis trusts the fit (its R² is good enough for σ, κ and the peak to mean
   * something); false without a fit. Readers use this, never a threshold of their own.
   */
  usl_trusted: z.boolean(),
  /**
   * Why the fit is not trusted, one sentence (a poor R², a level it misses badly, a fall the data
   * does not show); null when it is trusted or there is no fit. Optional: analyses made before it
   * existed omit it.
   */
  usl_untrusted_reason: z.string().nullable().optional(),
  /** The fitted curve, about 50 points spanning the measured levels, for drawing. */
  usl_curve: z.array(UslCurvePoint),
  /** The fit's throughput at each level of the curve (in-progress ones included), to set beside the measured QPS; empty without a fit. */
  usl_fitted: z.array(UslCurvePoint),
  efficiency: z.array(EfficiencyPoint),
  /** One sentence saying what efficiency is relative to (X(1), or the smallest level measured). */
  efficiency_basis: z.string(),
  /** e.g. "Saturates at concurrency 8 (contention σ=0.06)." */
  verdict: z.string(),
  /** Closed loop only; empty for open-loop runs. */
  littles_law: z.array(LittlesLawCheck),
  warnings: z.array(z.string()),
});
export type RunAnalysis = z.infer<typeof RunAnalysis>;

/** A curve point plus what an agent may also know: the mean latency, or the in-flight count it kept. */
export const AnalysisPoint = CurvePoint.extend({
  mean_ms: Millis.nullable().optional(),
  in_flight: z.number().nonnegative().nullable().optional(),
});
export type AnalysisPoint = z.infer<typeof AnalysisPoint>;

export const AnalyzeCurveInput = z.object({
  curve: z.array(AnalysisPoint),
  load_model: LoadModel,
  /** What the level counts: concurrency, threads, rate… Used in the sentences. */
  parameter: z.string().min(1),
});
export type AnalyzeCurveInput = z.infer<typeof AnalyzeCurveInput>;
