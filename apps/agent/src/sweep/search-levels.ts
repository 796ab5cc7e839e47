import { planCapacitySearch, poolObservations, searchObservation, type SearchObservation, type SearchOptions, type SearchStep } from '@kneeboard/analysis';
import { authorization, endpointUrl } from '@kneeboard/api-client';
import { Capacity, ENDPOINTS, formatSlos, searchTags, type SloClause } from '@kneeboard/contracts';
import type { Recorder } from '@kneeboard/agent-sdk';
import type { SweepConfig } from './config.ts';

/** The answer of `--search`: the planner's last step, and every level it ran, in order. */
export interface SearchResult {
  answer: Extract<SearchStep, { done: true }>;
  /** One entry per measurement of a level (a re-run of an unclear level is another), every repeat's run pooled in it. */
  observations: SearchObservation[];
}

/** Judges one measured level in every run (each repeat's): one observation of the level, decided on all of them. */
export type JudgeLevel = (level: number) => Promise<SearchObservation>;

/**
 * The judge a real sweep uses: wait until every run's events and step windows are delivered
 * (each run's `flush`), then ask the API for capacity under the SLOs (`GET /runs/{id}/analysis?slo=`),
 * which bootstraps the level's raw samples — all agents' samples, where several share a run. The
 * repeats' runs are judged each on its own and pooled into one observation (poolObservations: a
 * break in any is a break), so a level measured in three repeats counts once towards the search's
 * repeats of an unclear level and `--max-over`. A level re-run for being unclear replaces its
 * earlier window: the run keeps the newer measurement.
 */
export function apiJudge(cfg: Pick<SweepConfig, 'api' | 'token'>, runs: readonly Pick<Recorder, 'runId' | 'flush'>[], slos: readonly SloClause[]): JudgeLevel {
  const slo = formatSlos(slos);
  const headers = authorization(cfg.token);
  return async (level) => {
    await Promise.all(runs.map((r) => r.flush()));
    const observations: SearchObservation[] = [];
    for (const { runId } of runs) {
      const res = await fetch(endpointUrl(ENDPOINTS.runAnalysis, { params: { id: runId }, query: { slo } }, cfg.api), { headers });
      if (!res.ok) throw new Error(`the API answered ${res.status} when asked for capacity: ${await res.text()}`);
      const body = (await res.json()) as { capacity?: unknown };
      const capacity = Capacity.parse(body.capacity);
      const judged = capacity.levels.find((l) => l.level === level);
      observations.push(judged ? searchObservation(judged, slos) : { level, judgement: 'unclear', qps: 0, margin: null });
    }
    return poolObservations(observations);
  };
}

/** The planner's options for a sweep's `--search`: where it starts, how it counts levels, when it stops. */
export function searchOptions(cfg: Pick<SweepConfig, 'levels' | 'loadModel' | 'hold' | 'precision' | 'maxOver'>): SearchOptions {
  // A parameter sweep's levels are a knob's values: whole numbers unless the levels given are not.
  const integer = cfg.hold === undefined ? cfg.loadModel === 'closed' : cfg.levels.every(Number.isInteger);
  return { start: cfg.levels[0]!, loadModel: cfg.hold === undefined ? cfg.loadModel : 'closed', integer, precision: cfg.precision, maxOver: cfg.maxOver };
}

/**
 * The run tags that let the API show a `--search` as it goes (SEARCH_TAGS), and the run's `slo`
 * tag, so its page judges capacity under the searched SLOs by default; none without --search.
 */
export function searchRunTags(cfg: Pick<SweepConfig, 'search' | 'slos' | 'precision' | 'maxOver'>): Record<string, string> {
  if (!cfg.search) return {};
  const slo = formatSlos(cfg.slos);
  return { slo, ...searchTags({ slo, precision: cfg.precision, maxOver: cfg.maxOver }) };
}

/** The answer of a search stopped before it had one: what was judged so far, or nothing. */
export function stoppedAnswer(observations: readonly SearchObservation[], options: SearchOptions): SearchResult['answer'] {
  const stopped = observations.length > 0 ? planCapacitySearch(observations, { ...options, maxSteps: observations.length }) : null;
  return stopped?.done ? stopped : { done: true, reason: 'stopped before any level was judged', capacity: null, bracket: { holds: null, breaks: null }, unclear: [], skipped: [], over: 0 };
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
  const options = searchOptions(cfg);
  for (let index = 0; ; index++) {
    const step = planCapacitySearch(observations, options);
    onStep?.(step);
    if (step.done) return { answer: step, observations };
    if (aborted()) return { answer: stoppedAnswer(observations, options), observations };
    await runLevel(step.level, index);
    if (aborted()) continue;
    observations.push(await judge(step.level));
  }
}
