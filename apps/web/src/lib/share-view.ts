/**
 * What a read-only share link points at. A share token names runs, so a comparison is shared as
 * the runs it shows now: a `release:SERVICE@RELEASE` side becomes that release's run ids (a
 * release gains runs later; the link must keep showing what was shared, and the API lets a share
 * token read only ids it names).
 */
import type { RunDetail } from '@kneeboard/contracts';
import type { CompareViewState } from './view-state.ts';

export function pinnedCompareState(state: CompareViewState, details: RunDetail[], sizes: number[]): CompareViewState {
  const groups: string[] = [];
  let at = 0;
  for (const n of sizes) {
    groups.push(details.slice(at, at + n).map((d) => d.run.id).join(','));
    at += n;
  }
  const [base, ...heads] = groups;
  if (base === undefined || heads.length === 0 || at !== details.length) return state;
  return { ...state, base, heads };
}
