/**
 * Server-side: everything a comparison page draws, read from the API: each run's detail (for the
 * curves) and the comparison's statistics. Shared by /compare and /review.
 */
import { formatRunGroupRef, type CompareResponse, type RunDetail, type RunGroupRef } from '@kneeboard/contracts';
import { ApiUnavailableError, getCompare, getRun, listReleaseRunIds } from './api.ts';
import { activeSlo, type ActiveSlo } from './capacity-view.ts';
import { cache } from 'react';
import { runSeries } from './compare-series.ts';
import { comparisonTitle } from './comparison-title.ts';
import { compareSides, compareViewPath, DEFAULT_SETTINGS, parseCompareView, type CompareViewState, type SearchParams } from './view-state.ts';

export type ComparisonData =
  | {
      kind: 'ok';
      /** Every compared run, base group first, group by group. */
      details: RunDetail[];
      /** Runs per side, base first: 1 for a single run, N for repeats or a release's runs. */
      sizes: number[];
      stats: { ok: true; report: CompareResponse } | { ok: false; error: string };
      /** The SLOs the statistics' capacity was judged at (the URL's, else the base run's tag); null: none. */
      slo: ActiveSlo | null;
    }
  /** Runs (ids) or releases (`release:SERVICE@RELEASE`) the API does not have. */
  | { kind: 'missing'; ids: string[] }
  | { kind: 'unavailable'; error: ApiUnavailableError };

/** A side's run ids: as written, or a release's finished runs (as the API's compare resolves them). */
async function sideIds(ref: RunGroupRef): Promise<string[]> {
  return ref.kind === 'runs' ? ref.ids : listReleaseRunIds(ref.service, ref.release);
}

async function load(state: CompareViewState): Promise<ComparisonData> {
  try {
    const sides = compareSides(state);
    const [groups, stats] = await Promise.all([Promise.all(sides.map(sideIds)), getCompare(state)]);
    const emptyReleases = sides.filter((_, i) => groups[i]?.length === 0).map(formatRunGroupRef);
    if (emptyReleases.length > 0) return { kind: 'missing', ids: emptyReleases };
    const ids = groups.flat();
    const details = await Promise.all(ids.map((id) => getRun(id)));
    const missing = ids.filter((_, i) => details[i] === null);
    if (missing.length > 0) return { kind: 'missing', ids: missing };
    // Without slo= in the URL the base run's own `slo` tag applies, as on the run page: only the runs
    // say what it is, so its capacity is asked for once they are read.
    const slo = activeSlo(state.slo ?? null, (details[0] as RunDetail).run);
    const judged = slo?.source === 'tag' ? await getCompare(state, slo.text) : stats;
    return { kind: 'ok', details: details as RunDetail[], sizes: groups.map((g) => g.length), stats: judged, slo };
  } catch (err) {
    if (err instanceof ApiUnavailableError) return { kind: 'unavailable', error: err };
    throw err;
  }
}

/** One API round per render, shared by the page and its metadata (keyed by the canonical URL). */
const loadOnce = cache((path: string) => {
  const url = new URL(path, 'http://kneeboard.invalid');
  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  const params: SearchParams = { base: param('base'), head: url.searchParams.getAll('head'), min_effect: param('min_effect'), noise_asof: param('noise_asof'), slo: param('slo') };
  const parsed = parseCompareView(params);
  if (!parsed.ok) throw new Error(`not a comparison: ${path}`);
  return load(parsed.state);
});

export function loadComparison(state: CompareViewState): Promise<ComparisonData> {
  // Only the runs, min_effect, the noise basis and the SLOs decide what is loaded: a view's other settings share the answer.
  return loadOnce(compareViewPath({ ...state, ...DEFAULT_SETTINGS }));
}

/** The browser tab's title: `fusillade: v1.6.2 vs v1.6.1`. */
export async function comparisonPageTitle(params: SearchParams, fallback: string): Promise<string> {
  const parsed = parseCompareView(params);
  if (!parsed.ok) return fallback;
  const data = await loadComparison(parsed.state);
  if (data.kind !== 'ok') return fallback;
  return comparisonTitle(data.details, groupLabels(data.details, data.sizes));
}

/** One label per side (base first): `v1.0.0 ×3` for a group. */
export function groupLabels(details: ReadonlyArray<RunDetail>, sizes: ReadonlyArray<number>): string[] {
  return runSeries(details, sizes)
    .filter((s) => s.member === 0)
    .map((s) => s.label);
}
