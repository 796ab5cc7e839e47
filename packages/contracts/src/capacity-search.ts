import { z } from 'zod';
import { CapacityPoint } from './capacity.ts';
import type { Tags } from './run.ts';

/**
 * The run tags a `kneeboard sweep --slo … --search` writes on each run it creates: the search's
 * SLOs (canonical, comma-separated), precision and `--max-over`. The API reads them to show the
 * search as it goes (CapacitySearchState); a run without them was not searched.
 */
export const SEARCH_TAGS = { slo: 'search_slo', precision: 'search_precision', maxOver: 'search_max_over' } as const;

export interface SearchTagValues {
  slo: string;
  precision: number;
  maxOver: number;
}

/** The tags for a search's settings. */
export function searchTags(v: SearchTagValues): Record<string, string> {
  return { [SEARCH_TAGS.slo]: v.slo, [SEARCH_TAGS.precision]: String(v.precision), [SEARCH_TAGS.maxOver]: String(v.maxOver) };
}

/** A run's search settings from its tags; null when it was not searched (or the tags were edited into nonsense). */
export function searchTagsOf(tags: Tags): SearchTagValues | null {
  const slo = tags[SEARCH_TAGS.slo];
  const precision = Number(tags[SEARCH_TAGS.precision]);
  const maxOver = Number(tags[SEARCH_TAGS.maxOver]);
  if (!slo || !(precision > 0 && precision <= 0.5) || !(Number.isInteger(maxOver) && maxOver >= 1)) return null;
  return { slo, precision, maxOver };
}

/** One level the search ran, as judged now under the search's SLOs. */
export const SearchLevel = z.object({
  level: z.number().positive(),
  qps: z.number().nonnegative(),
  /** `skipped`: the load generator (or a partial step) was the limit, no evidence either way. */
  judgement: z.enum(['holds', 'breaks', 'unclear', 'skipped']),
  /** Why this level bounds the search from above (an SLO broke, throughput fell, the rate was not achieved); null otherwise. */
  bound: z.string().nullable(),
});
export type SearchLevel = z.infer<typeof SearchLevel>;

/**
 * A capacity search as it stands (live or finished): the levels tried in the order they ran, the
 * bracket (last level that holds, first that bounds), the best answer so far, and either the next
 * level the planner asks for or why it stopped. Recomputed from the run's stored steps by the
 * same planner the agent runs, so a viewer and the CLI agree.
 */
export const CapacitySearchState = z.object({
  slos: z.array(z.string()),
  precision: z.number().positive(),
  max_over: z.number().int().positive(),
  tried: z.array(SearchLevel),
  bracket: z.object({ holds: CapacityPoint.nullable(), breaks: CapacityPoint.nullable() }),
  /** The best answer so far: the highest level that holds below the bound. */
  best: CapacityPoint.nullable(),
  /** The planner has its answer (the run may still be closing). */
  done: z.boolean(),
  /** The next level asked for while not done; null once done. */
  next: z.number().positive().nullable(),
  /** Why the planner asks for the next level, or why it stopped. */
  reason: z.string(),
  /** Levels that stayed unclear, or the load generator could not hold: named, never counted. */
  unclear: z.array(z.number().positive()),
  skipped: z.array(z.number().positive()),
});
export type CapacitySearchState = z.infer<typeof CapacitySearchState>;
