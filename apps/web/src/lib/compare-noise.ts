/**
 * The comparison's noise basis in its URL. A single-run side borrows the run-to-run spread of
 * earlier repeats of the service; the API says which runs it read and as of when
 * (`noise.history.asof`). Writing that cut-off into the page's URL (`noise_asof=`) makes a reload,
 * a copied address or a share link show the same verdict however many repeats are stored later; a
 * newer basis is offered by the banner, never swapped in.
 */
import type { CompareResponse } from '@kneeboard/contracts';
import type { CompareViewState } from './view-state.ts';

/** The cut-off the report used, when a side borrowed history (the same for every head: one service, one query). */
export function reportNoiseAsof(report: CompareResponse): number | null {
  return report.heads.find((h) => h.noise.history)?.noise.history?.asof ?? null;
}

/** The state with the report's noise basis pinned, unless the URL pinned one already. */
export function withNoiseBasis(state: CompareViewState, stats: { ok: true; report: CompareResponse } | { ok: false }): CompareViewState {
  if (state.noiseAsof || !stats.ok) return state;
  const asof = reportNoiseAsof(stats.report);
  return asof === null ? state : { ...state, noiseAsof: asof };
}

/** The same page's query with the noise basis moved to `asof` (the newer one offered). */
export function recomputeQuery(search: string, asof: number): string {
  const params = new URLSearchParams(search);
  params.set('noise_asof', String(asof));
  return `?${params.toString().replace(/%2C/gi, ',').replace(/%3A/gi, ':').replace(/%40/g, '@')}`;
}
