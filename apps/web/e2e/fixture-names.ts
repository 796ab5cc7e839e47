/**
 * A finished sweep whose requests carry three names (an endpoint mix), for the run page's endpoint
 * selector: each name's curve, the whole run's, and the endpoint analysis made by the same
 * analyzeEndpoints the API runs. `?name=` answers that name's curve (fixture-api.ts).
 */
import { analyzeEndpoints } from '@kneeboard/analysis';
import type { CurvePoint, RunDetail, RunNameCurves } from '@kneeboard/contracts';
import { point, run, stepsFor, uuid, withAnalysis } from './fixture-data.ts';

export const NAMED_RUN_ID = uuid(0x2701);
/** Long enough that the page must cut it (a URL-like request name). */
export const LONG_NAME = 'POST /api/v2/checkout/confirm-order-with-payment-and-shipping-details-for-the-whole-basket';

const LEVELS = [1, 2, 4, 8, 16, 32];
/** Per name: its share of the requests, and [qps, p50 ms] per level. `cart` saturates at 4, `search` keeps scaling. */
const MIX: Record<string, Array<[number, number]>> = {
  search: [[12, 20], [24, 20.5], [47, 21], [93, 22], [180, 24], [330, 27]],
  cart: [[6, 30], [12, 31], [21, 38], [22, 80], [22.5, 160], [23, 320]],
  [LONG_NAME]: [[2, 40], [4, 41], [8, 44], [15, 48], [27, 60], [40, 95]],
};

function nameCurve(name: string): CurvePoint[] {
  return MIX[name]!.map(([qps, p50], i) => point(LEVELS[i]!, { qps, p50_ms: p50, p99_ms: p50 * (name === 'cart' ? 3 : 1.5) }));
}

/** The whole run's point at each level: throughputs add, the median weighted by requests, the tail the worst name's. */
function totalCurve(curves: CurvePoint[][]): CurvePoint[] {
  return LEVELS.map((level, i) => {
    const at = curves.map((c) => c[i]!);
    const qps = at.reduce((n, p) => n + p.qps, 0);
    const p50 = at.reduce((n, p) => n + p.qps * p.p50_ms!, 0) / qps;
    return point(level, { qps, p50_ms: p50, p99_ms: Math.max(...at.map((p) => p.p99_ms!)) });
  });
}

export interface NamedRun {
  /** The whole run, as `GET /runs/{id}` answers it. */
  detail: RunDetail;
  /** Each name's answer to `GET /runs/{id}?name=`. */
  byName: Map<string, RunDetail>;
}

export function namedRun(now: number): NamedRun {
  const created = now - 2 * 3_600_000;
  const names = Object.keys(MIX);
  const curves = names.map(nameCurve);
  const total = totalCurve(curves);
  const base = { run: run({ id: NAMED_RUN_ID, service: 'storefront', release: 'v3.1.0', name: 'endpoint mix', created_at: created, finished_at: created + 60_000 }), steps: stepsFor(total, created, 10_000, 1_000), percentiles: 'exact' as const };
  const whole = withAnalysis({ ...base, curve: total });
  const counts = names.map((name, i) => ({ name, requests: curves[i]!.reduce((n, p) => n + p.requests, 0) })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const endpoints = analyzeEndpoints({
    runKnee: whole.analysis.knee?.level ?? null,
    levels: LEVELS,
    load_model: whole.run.load_model,
    parameter: whole.run.parameter,
    names: names.map((name, i) => ({ name, requests: counts.find((c) => c.name === name)!.requests, curve: curves[i]! })),
  });
  const extra = { names: counts, endpoints };
  return {
    detail: { ...whole, ...extra },
    byName: new Map(names.map((name, i) => [name, { ...withAnalysis({ ...base, curve: curves[i]! }), ...extra, name }])),
  };
}

/** `GET /runs/{id}?name=` for a fixture run: that name's detail, or null (404 naming `name`) when the run has no such name. */
export function namedDetail(d: RunDetail, name: string, runs: ReadonlyArray<NamedRun>): RunDetail | null {
  return runs.find((r) => r.detail.run.id === d.run.id)?.byName.get(name) ?? null;
}

/** `GET /runs/{id}/names` for a fixture run: every name's curve busiest first, with the knee the endpoint analysis found; an empty list for a run without names. */
export function nameCurvesFor(d: RunDetail, runs: ReadonlyArray<NamedRun>): RunNameCurves {
  const r = runs.find((x) => x.detail.run.id === d.run.id);
  if (!r) return { percentiles: null, names: [], omitted: 0 };
  const knees = new Map(r.detail.endpoints!.endpoints.map((e) => [e.name, e]));
  const names = [...r.byName.entries()]
    .map(([name, one]) => ({
      name,
      requests: knees.get(name)!.requests,
      knee_level: knees.get(name)!.knee_level,
      curve: one.curve.map((p) => ({ level: p.level, requests: p.requests, errors: p.errors, qps: p.qps, p50_ms: p.p50_ms, p99_ms: p.p99_ms })),
    }))
    .sort((a, b) => b.requests - a.requests || (a.name < b.name ? -1 : 1));
  return { percentiles: r.detail.percentiles ?? 'rollup', names, omitted: 0 };
}
