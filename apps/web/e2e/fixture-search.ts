/**
 * A `kneeboard sweep --slo 'p50<=100ms' --search` run, live: the demo target's 4 workers × 40 ms
 * model (p50 ≈ concurrency × 10 ms past 4, so p50 ≤ 100 ms holds up to concurrency 9). The levels
 * are the ones the real planner asks for, judged on each level's p50; the run's `search` is the
 * API's own replay (capacitySearchState) of the steps finished so far.
 */
import { capacitySearchState, planCapacitySearch, type SearchObservation } from '@kneeboard/analysis';
import { parseSlos, searchTags, type Capacity, type CapacityLevel, type CurvePoint, type RunDetail, type StepWindow } from '@kneeboard/contracts';
import { FIXTURE_IDS, modelPoint, run, withAnalysis } from './fixture-data.ts';

export const SEARCH_SLO = 'p50<=100ms';
const SETTINGS = { slo: SEARCH_SLO, precision: 0.05, maxOver: 1 };
const OPTIONS = { start: 2, loadModel: 'closed', precision: SETTINGS.precision, maxOver: SETTINGS.maxOver } as const;
const pointAt = (level: number, inProgress = false) => modelPoint(level, { workers: 4, serviceMs: 40, inProgress, windowS: inProgress ? 1 : 5 });

function judged(p: CurvePoint): CapacityLevel {
  const value = p.p50_ms;
  const holds = value !== null && value <= 100;
  return { level: p.level, qps: p.qps, judgement: holds ? 'holds' : 'breaks', skipped_reason: null, checks: [{ slo: SEARCH_SLO, value, low: value, high: value, basis: 'point', judgement: holds ? 'holds' : 'breaks' }] };
}

/** The levels the planner runs, in order, until it answers. */
function searchedLevels(): number[] {
  const history: SearchObservation[] = [];
  for (;;) {
    const step = planCapacitySearch(history, OPTIONS);
    if (step.done) return history.map((h) => h.level);
    const level = judged(pointAt(step.level));
    history.push({ level: step.level, judgement: level.judgement, qps: level.qps, margin: (level.checks[0]!.value ?? 0) / 100 });
  }
}

export const SEARCH_LEVELS = searchedLevels();

/** The search run after `tick` finished levels (the next one being measured), finished once every level ran. */
export function searchRunAt(tick: number, createdAt: number, stepMs: number): RunDetail {
  const done = Math.min(tick, SEARCH_LEVELS.length);
  const finished = tick >= SEARCH_LEVELS.length;
  const ran = SEARCH_LEVELS.slice(0, finished ? done : done + 1);
  const steps: StepWindow[] = ran.map((level, i) => ({ level, started_at: createdAt + i * stepMs, measure_from: createdAt + i * stepMs + 50, ended_at: i < done ? createdAt + (i + 1) * stepMs : null }));
  const curve = ran.map((level, i) => pointAt(level, i >= done)).sort((a, b) => a.level - b.level);
  const levels = curve.filter((p) => !p.in_progress).map(judged);
  const capacity: Capacity = {
    slos: [SEARCH_SLO],
    confidence: 0.95,
    samples: 'none',
    level: null,
    qps: null,
    bracket: { holds: null, breaks: null, crossing: null },
    unclear_levels: [],
    skipped_levels: [],
    levels,
    summary: '',
    warnings: [],
  };
  const parsed = parseSlos(SEARCH_SLO);
  if (!parsed.ok) throw new Error(parsed.error);
  const detail = withAnalysis({
    run: run({
      id: FIXTURE_IDS.live,
      service: 'demo-target',
      release: 'v1.0.0',
      name: 'capacity search (4 workers, 40 ms)',
      // No `slo` tag (the real run has one): this fixture API judges no capacity for the SLO panel.
      tags: searchTags(SETTINGS),
      agent_host: 'ci-runner',
      agent_cores: 2,
      status: finished ? 'finished' : 'running',
      created_at: createdAt,
      finished_at: finished ? createdAt + SEARCH_LEVELS.length * stepMs : null,
    }),
    steps,
    curve,
  });
  return { ...detail, search: capacitySearchState({ steps, capacity, slos: parsed.clauses, settings: SETTINGS, loadModel: 'closed', integer: true }) };
}
