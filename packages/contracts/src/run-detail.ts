import { z } from 'zod';
import { RunAnalysis } from './analysis.ts';
import { CapacitySearchState } from './capacity-search.ts';
import { Curve, PercentileSource } from './curve.ts';
import { EndpointAnalysis, RunNameCount } from './request-names.ts';
import { Run, RunStatus } from './run.ts';
import { StepWindow } from './step.ts';

/** Everything the run page shows; also the payload of each live update. */
export const RunDetail = z.object({
  run: Run,
  steps: z.array(StepWindow),
  curve: Curve,
  /** Where the curve's percentiles come from. The API always sends it; absent means `rollup`. */
  percentiles: PercentileSource.optional(),
  /** The knee, USL fit, efficiency and verdict for the curve, recomputed with every answer. */
  analysis: RunAnalysis,
  /** A run made by `kneeboard sweep --search`: the search as it stands (absent for any other run). */
  search: CapacitySearchState.optional(),
  /** The request names the run's events carry, by name (absent for a run without names). */
  names: z.array(RunNameCount).optional(),
  /** With `?name=`: the name whose curve `curve` and `analysis` are (absent for the whole run's). */
  name: z.string().optional(),
  /** Each name's knee, which saturates first and which dominates p99 (absent for a run without names). */
  endpoints: EndpointAnalysis.optional(),
});
export type RunDetail = z.infer<typeof RunDetail>;

/** Server-Sent Event names on a run's live stream (ENDPOINTS.runLive). Each `snapshot` carries a full RunDetail. */
export const LIVE_EVENT = { snapshot: 'snapshot', end: 'end' } as const;

/** The data of the `end` event: the run's final status. */
export const LiveEnd = z.object({ status: RunStatus });
export type LiveEnd = z.infer<typeof LiveEnd>;
