/**
 * A live sweep whose requests carry names (an endpoint mix), for the run page's live Endpoints
 * summary. After `tick` finished levels (the next one being measured) the whole run's curve so
 * far, and the endpoint analysis made by the same analyzeEndpoints the API runs on the names'
 * curves of the finished levels. The tail moves: at the low levels `HOSTILE_NAME` has the worst p99,
 * once `cart` saturates (past 4) cart's grows past it. Like the API's snapshots made from its figures in memory (and
 * harder: those repeat the last analysis), every even tick carries neither `names` nor `endpoints`:
 * the page keeps the last ones. Tick 0 has no names yet.
 */
import { analyzeEndpoints } from '@kneeboard/analysis';
import type { CurvePoint, EndpointAnalysis, RunDetail, RunNameCount } from '@kneeboard/contracts';
import { FIXTURE_IDS, point, run, stepsFor, withAnalysis } from './fixture-data.ts';

/** A request name that is also markup: the page must show it as text. */
export const HOSTILE_NAME = 'GET /search?q=<img src=x onerror="document.title=\'pwned\'">&lang="en"';

export const LIVE_NAMED_LEVELS = [1, 2, 4, 8, 16, 32];
/** Per name, [qps, p50 ms] per level; p99 is p50 × TAIL. */
const MIX: Record<string, Array<[number, number]>> = {
  search: [[12, 20], [24, 20.5], [47, 21], [93, 22], [180, 24], [330, 27]],
  cart: [[6, 30], [12, 31], [21, 38], [22, 80], [22.5, 160], [23, 320]],
  [HOSTILE_NAME]: [[2, 40], [4, 41], [8, 44], [15, 48], [27, 60], [40, 95]],
};
const TAIL: Record<string, number> = { search: 1.5, cart: 3, [HOSTILE_NAME]: 4 };
const NAMES = Object.keys(MIX);
const WINDOW_S = 5;

function namePoint(name: string, i: number, inProgress: boolean): CurvePoint {
  const [qps, p50] = MIX[name]![i]!;
  return point(LIVE_NAMED_LEVELS[i]!, { qps, p50_ms: p50, p99_ms: p50 * TAIL[name]!, in_progress: inProgress }, inProgress ? WINDOW_S / 2 : WINDOW_S);
}

/** The whole run's point: throughputs add, the median weighted by requests, the tail the worst name's. */
function totalPoint(i: number, inProgress: boolean): CurvePoint {
  const at = NAMES.map((name) => namePoint(name, i, inProgress));
  const qps = at.reduce((n, p) => n + p.qps, 0);
  const p50 = at.reduce((n, p) => n + p.qps * p.p50_ms!, 0) / qps;
  return point(LIVE_NAMED_LEVELS[i]!, { qps, p50_ms: p50, p99_ms: Math.max(...at.map((p) => p.p99_ms!)), in_progress: inProgress }, inProgress ? WINDOW_S / 2 : WINDOW_S);
}

/** The names and their analysis after `done` finished levels (null before the first finished). */
function liveEndpointsAfter(done: number, runKnee: number | null): { names: RunNameCount[]; endpoints: EndpointAnalysis } | null {
  if (done === 0) return null;
  const curves = NAMES.map((name) => LIVE_NAMED_LEVELS.slice(0, done).map((_, i) => namePoint(name, i, false)));
  const names = NAMES.map((name, k) => ({ name, requests: curves[k]!.reduce((n, p) => n + p.requests, 0) })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const endpoints = analyzeEndpoints({
    runKnee,
    levels: LIVE_NAMED_LEVELS.slice(0, done),
    load_model: 'closed',
    parameter: 'concurrency',
    names: NAMES.map((name, k) => ({ name, requests: names.find((c) => c.name === name)!.requests, curve: curves[k]! })),
  });
  return { names, endpoints };
}

/** Whether the snapshot at `tick` carries the endpoints (odd ticks, and the finished run's). */
export const carriesEndpoints = (tick: number) => tick >= LIVE_NAMED_LEVELS.length || tick % 2 === 1;

/** The live named run at a tick (FIXTURE_IDS.live, for the fixture API's `liveRun`). */
export function liveNamedRunAt(tick: number, createdAt: number, stepMs: number): RunDetail {
  const levels = LIVE_NAMED_LEVELS;
  const done = Math.min(tick, levels.length);
  const finished = tick >= levels.length;
  const curve = levels.slice(0, done).map((_, i) => totalPoint(i, false));
  if (!finished) curve.push(totalPoint(done, true));
  const detail = withAnalysis({
    run: run({
      id: FIXTURE_IDS.live,
      service: 'storefront',
      release: 'v3.2.0',
      name: 'live endpoint mix',
      agent_host: 'ci-runner',
      agent_cores: 2,
      status: finished ? 'finished' : 'running',
      created_at: createdAt,
      finished_at: finished ? createdAt + levels.length * stepMs : null,
    }),
    steps: stepsFor(curve, createdAt, stepMs, 0),
    curve,
    percentiles: 'exact',
  });
  const extra = carriesEndpoints(tick) ? liveEndpointsAfter(done, withAnalysis({ ...detail, curve: curve.filter((p) => !p.in_progress) }).analysis.knee?.level ?? null) : null;
  return extra ? { ...detail, ...extra } : detail;
}

/**
 * The live named run's `?name=` answer at a tick: that name's curve so far (its finished levels and
 * the one being measured) with its own analysis, the run's names and endpoints as the snapshot has
 * them; null for a name the mix does not have.
 */
export function liveNamedRunNamedAt(tick: number, createdAt: number, stepMs: number, name: string): RunDetail | null {
  if (!(name in MIX)) return null;
  const whole = liveNamedRunAt(tick, createdAt, stepMs);
  const done = Math.min(tick, LIVE_NAMED_LEVELS.length);
  const curve = LIVE_NAMED_LEVELS.slice(0, done).map((_, i) => namePoint(name, i, false));
  if (done < LIVE_NAMED_LEVELS.length) curve.push(namePoint(name, done, true));
  return { ...withAnalysis({ ...whole, curve }), name };
}
