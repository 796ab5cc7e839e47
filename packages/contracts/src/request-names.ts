import { z } from 'zod';
import { PercentileSource, PercentilesQuery } from './curve.ts';
import { EventName } from './events.ts';

/** A run's curve, or with `name=` one request name's (the endpoints the run's events name). */
export const RunDetailQuery = PercentilesQuery.extend({
  name: EventName.refine((v) => v !== '', 'must not be empty: leave name= out for the whole run')
    .optional()
    .meta({ description: "One request name's curve (an entry of the run's `names`) instead of the whole run's" }),
});
export type RunDetailQuery = z.infer<typeof RunDetailQuery>;

/** A request name the run's events carry, and how many requests have it. */
export const RunNameCount = z.object({ name: z.string(), requests: z.number().int().nonnegative() });
export type RunNameCount = z.infer<typeof RunNameCount>;

/** One name's knee (on its own curve) and its p99 at the level the names are compared at. */
export const EndpointKnee = z.object({
  name: z.string(),
  requests: z.number().int().nonnegative(),
  /** Where this name's own curve bends; null when it shows no knee in the levels swept. */
  knee_level: z.number().nullable(),
  /** This name's p99 at `EndpointAnalysis.level`; null when it has no successful request there. */
  p99_ms: z.number().nullable(),
});
export type EndpointKnee = z.infer<typeof EndpointKnee>;

/**
 * Which endpoint gives out first and which one makes the tail: each name's knee found on its own
 * curve, and every name's p99 compared at one level — the run's knee, or its highest level when
 * the run shows none. Absent for a run without names.
 */
export const EndpointAnalysis = z.object({
  /** The level the names' p99 are compared at. Null when no level has data. */
  level: z.number().nullable(),
  /** Whether `level` is the run's knee (else its highest level). */
  level_is_knee: z.boolean(),
  /** By name. */
  endpoints: z.array(EndpointKnee),
  /** The name whose own knee comes at the lowest level; null when none shows a knee. */
  saturates_first: z.string().nullable(),
  /** The name with the highest p99 at `level`; null when no name has one there. */
  dominates_p99: z.string().nullable(),
  /** One or two sentences saying both. */
  summary: z.string(),
});
export type EndpointAnalysis = z.infer<typeof EndpointAnalysis>;

/** One level of a request name's curve: what a small chart per endpoint and a per-name export read. */
export const NameCurvePoint = z.object({
  level: z.number(),
  requests: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  /** Successful requests of this name per second of the level's window. */
  qps: z.number().nonnegative(),
  /** Null when the name has no successful request at this level (a gap, never 0). */
  p50_ms: z.number().nullable(),
  p99_ms: z.number().nullable(),
});
export type NameCurvePoint = z.infer<typeof NameCurvePoint>;

/** A request name's curve, the same points `GET /runs/{id}?name=` answers, and where it bends. */
export const NameCurve = z.object({
  name: z.string(),
  requests: z.number().int().nonnegative(),
  /** Where this name's own curve bends (the knee `endpoints` reports); null when it shows none. */
  knee_level: z.number().nullable(),
  curve: z.array(NameCurvePoint),
});
export type NameCurve = z.infer<typeof NameCurve>;

/** Every request name's curve in one answer, busiest first (ties by name). */
export const RunNameCurves = z.object({
  /** Where the curves' percentiles come from (as on the run detail); null for a run without names. */
  percentiles: PercentileSource.nullable(),
  /** Empty for a run without names. */
  names: z.array(NameCurve),
  /** Names past the per-run cap (KNEEBOARD_MAX_NAMES_PER_RUN) left out, the quietest first. */
  omitted: z.number().int().nonnegative(),
});
export type RunNameCurves = z.infer<typeof RunNameCurves>;
