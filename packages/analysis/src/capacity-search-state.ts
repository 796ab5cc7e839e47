import type { Capacity, CapacitySearchState, SearchTagValues, SloClause, StepWindow } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { planCapacitySearch, searchObservation, searchProgress, type SearchObservation, type SearchOptions } from './capacity-search.ts';

export interface SearchStateInput {
  /** The run's step windows (the latest window of a level re-run replaces its first: it runs where it ran last). */
  steps: readonly StepWindow[];
  /** Capacity under the search's SLOs, as the API judges the run now. */
  capacity: Capacity;
  slos: readonly SloClause[];
  settings: SearchTagValues;
  /** As the agent's planner saw the levels: a concurrency (or a knob's value), or an offered rate. */
  loadModel: 'closed' | 'open';
  integer: boolean;
}

/**
 * A `--search` run's search as it stands, replayed from what is stored: each finished step, in the
 * order it started, judged under the search's SLOs, then the agent's own planner asked for the next
 * level or the answer. A step still running is the next level (being measured), not evidence.
 */
export function capacitySearchState(input: SearchStateInput): CapacitySearchState {
  const ordered = [...input.steps].sort((a, b) => a.started_at - b.started_at);
  const history: SearchObservation[] = [];
  let running: number | null = null;
  for (const step of ordered) {
    const judged = input.capacity.levels.find((l) => l.level === step.level);
    if (step.ended_at === null || !judged) {
      running = step.level;
      continue;
    }
    history.push(searchObservation(judged, input.slos));
  }
  const options: SearchOptions = {
    start: ordered[0]?.level ?? 1,
    loadModel: input.loadModel,
    integer: input.integer,
    precision: input.settings.precision,
    maxOver: input.settings.maxOver,
  };
  const progress = searchProgress(history, options);
  const base = {
    slos: input.capacity.slos,
    precision: input.settings.precision,
    max_over: input.settings.maxOver,
    tried: history.map((h) => {
      const s = progress.levels.find((l) => l.level === h.level)!;
      return { level: s.level, qps: s.qps, judgement: s.judgement, bound: s.bound };
    }),
  };
  if (running !== null) {
    return { ...base, bracket: progress.bracket, best: progress.bracket.holds, done: false, next: running, reason: `measuring ${formatLevel(running)}`, unclear: [], skipped: [] };
  }
  const step = planCapacitySearch(history, options);
  if (!step.done) return { ...base, bracket: progress.bracket, best: progress.bracket.holds, done: false, next: step.level, reason: step.reason, unclear: [], skipped: [] };
  return { ...base, bracket: step.bracket, best: step.capacity, done: true, next: null, reason: step.reason, unclear: step.unclear, skipped: step.skipped };
}
