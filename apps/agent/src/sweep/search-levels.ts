import { planCapacitySearch, searchObservation, type SearchObservation, type SearchStep } from '@kneeboard/analysis';
import { authorization, endpointUrl } from '@kneeboard/api-client';
import { Capacity, ENDPOINTS, formatSlos, type SloClause } from '@kneeboard/contracts';
import type { Recorder } from '@kneeboard/agent-sdk';
import type { SweepConfig } from './config.ts';

/** The answer of `--search`: the planner's last step, and every level it ran, in order. */
export interface SearchResult {
  answer: Extract<SearchStep, { done: true }>;
  /** One entry per run of a level (a repeat of the sweep, or a re-run of an unclear level). */
  observations: SearchObservation[];
}

/** Judges one measured level in every run: the API's capacity for that level, one observation per run. */
export type JudgeLevel = (level: number) => Promise<SearchObservation[]>;

/**
 * The judge a real sweep uses: wait until every run's events and step windows are delivered,
 * then ask the API for capacity under the SLOs (`GET /runs/{id}/analysis?slo=`), which
 * bootstraps the level's raw samples. Each repeat's run is judged on its own; the planner takes
 * them together (a break in any run is a break). A level re-run for being unclear replaces its
 * earlier window: the run keeps the newer measurement.
 */
export function apiJudge(cfg: Pick<SweepConfig, 'api' | 'token'>, recorders: readonly Recorder[], slos: readonly SloClause[]): JudgeLevel {
  const slo = formatSlos(slos);
  const headers = authorization(cfg.token);
  return async (level) => {
    await Promise.all(recorders.map((r) => r.flush()));
    const observations: SearchObservation[] = [];
    for (const rec of recorders) {
      const res = await fetch(endpointUrl(ENDPOINTS.runAnalysis, { params: { id: rec.runId }, query: { slo } }, cfg.api), { headers });
      if (!res.ok) throw new Error(`the API answered ${res.status} when asked for capacity: ${await res.text()}`);
      const body = (await res.json()) as { capacity?: unknown };
      const capacity = Capacity.parse(body.capacity);
      const judged = capacity.levels.find((l) => l.level === level);
      observations.push(judged ? searchObservation(judged, slos) : { level, judgement: 'unclear', qps: 0, margin: null });
    }
    return observations;
  };
}

/**
 * `--search`: runs the levels the planner asks for, one at a time, from the first level given,
 * until it answers. `runLevel` measures one level in every repeat (the sweep's own step loop);
 * stops early, with the planner's answer so far, when the sweep is aborted.
 */
export async function searchLevels(
  cfg: Pick<SweepConfig, 'levels' | 'loadModel' | 'hold' | 'precision' | 'maxOver'>,
  runLevel: (level: number, index: number) => Promise<void>,
  judge: JudgeLevel,
  aborted: () => boolean,
  onStep?: (step: SearchStep) => void,
): Promise<SearchResult> {
  const observations: SearchObservation[] = [];
  // A parameter sweep's levels are a knob's values: whole numbers unless the levels given are not.
  const integer = cfg.hold === undefined ? cfg.loadModel === 'closed' : cfg.levels.every(Number.isInteger);
  const options = { start: cfg.levels[0]!, loadModel: cfg.hold === undefined ? cfg.loadModel : 'closed', integer, precision: cfg.precision, maxOver: cfg.maxOver } as const;
  for (let index = 0; ; index++) {
    const step = planCapacitySearch(observations, options);
    onStep?.(step);
    if (step.done) return { answer: step, observations };
    if (aborted()) {
      const stopped = observations.length > 0 ? planCapacitySearch(observations, { ...options, maxSteps: observations.length }) : null;
      const answer = stopped?.done ? stopped : { done: true as const, reason: 'stopped before any level was judged', capacity: null, bracket: { holds: null, breaks: null }, unclear: [], skipped: [], over: 0 };
      return { answer, observations };
    }
    await runLevel(step.level, index);
    if (aborted()) continue;
    observations.push(...(await judge(step.level)));
  }
}
