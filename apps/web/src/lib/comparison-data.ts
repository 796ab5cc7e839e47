/**
 * Server-side: everything a comparison page draws, read from the API: each run's detail (for the
 * curves) and the comparison's statistics. Shared by /compare and /review.
 */
import type { CompareResponse, RunDetail } from '@kneeboard/contracts';
import { ApiUnavailableError, getCompare, getRun } from './api.ts';
import { cache } from 'react';
import { runLabel } from './compare-series.ts';
import { comparisonTitle } from './comparison-title.ts';
import { compareViewPath, DEFAULT_SETTINGS, parseCompareView, type CompareViewState, type SearchParams } from './view-state.ts';

export type ComparisonData =
  | { kind: 'ok'; details: RunDetail[]; stats: { ok: true; report: CompareResponse } | { ok: false; error: string } }
  | { kind: 'missing'; ids: string[] }
  | { kind: 'unavailable'; error: ApiUnavailableError };

async function load(state: CompareViewState): Promise<ComparisonData> {
  const ids = [state.base, ...state.heads];
  try {
    const [details, stats] = await Promise.all([Promise.all(ids.map((id) => getRun(id))), getCompare(state)]);
    const missing = ids.filter((_, i) => details[i] === null);
    if (missing.length > 0) return { kind: 'missing', ids: missing };
    return { kind: 'ok', details: details as RunDetail[], stats };
  } catch (err) {
    if (err instanceof ApiUnavailableError) return { kind: 'unavailable', error: err };
    throw err;
  }
}

/** One API round per render, shared by the page and its metadata (keyed by the canonical URL). */
const loadOnce = cache((path: string) => {
  const url = new URL(path, 'http://kneeboard.invalid');
  const params: SearchParams = { base: url.searchParams.get('base') ?? undefined, head: url.searchParams.getAll('head'), min_effect: url.searchParams.get('min_effect') ?? undefined };
  const parsed = parseCompareView(params);
  if (!parsed.ok) throw new Error(`not a comparison: ${path}`);
  return load(parsed.state);
});

export function loadComparison(state: CompareViewState): Promise<ComparisonData> {
  // Only the runs and min_effect decide what is loaded: a view's other settings share the answer.
  return loadOnce(compareViewPath({ ...state, ...DEFAULT_SETTINGS }));
}

/** The browser tab's title: `fusillade: v1.6.2 vs v1.6.1`. */
export async function comparisonPageTitle(params: SearchParams, fallback: string): Promise<string> {
  const parsed = parseCompareView(params);
  if (!parsed.ok) return fallback;
  const data = await loadComparison(parsed.state);
  if (data.kind !== 'ok') return fallback;
  const runs = data.details.map((d) => d.run);
  return comparisonTitle(data.details, runs.map((r) => runLabel(r, runs)));
}
