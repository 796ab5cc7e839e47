/**
 * Prepare a service's release history: its runs grouped by release, newest release on top, and for
 * each release the one-click "compare with the previous release": this release's newest finished
 * run (the head) against the newest finished run of the release before it (the base).
 */
import type { ReleaseGroup, RunSummary } from '@kneeboard/contracts';
import { compareViewPath, DEFAULT_SETTINGS, DEFAULT_MIN_EFFECT } from './view-state.ts';

export interface PreviousComparison {
  /** The release compared against (the nearest earlier one with a finished run). */
  release: string;
  base: RunSummary;
  head: RunSummary;
  href: string;
}

export interface ReleaseView {
  release: string;
  firstRunAt: number;
  /** Newest first. */
  runs: RunSummary[];
  newestFinished: RunSummary | null;
  previous: PreviousComparison | null;
}

function newestFinished(runs: ReadonlyArray<RunSummary>): RunSummary | null {
  return runs.filter((r) => r.status === 'finished').reduce<RunSummary | null>((best, r) => (best === null || r.created_at > best.created_at ? r : best), null);
}

export function compareHref(base: string, heads: string[]): string {
  return compareViewPath({ ...DEFAULT_SETTINGS, base, heads, minEffect: DEFAULT_MIN_EFFECT });
}

/**
 * `releases` as the API sends them (oldest first). A release with no finished run cannot be
 * compared; a release whose predecessor has none is compared with the nearest earlier one that has.
 */
export function releaseViews(releases: ReadonlyArray<ReleaseGroup>): ReleaseView[] {
  const ordered = [...releases].sort((a, b) => a.first_run_at - b.first_run_at);
  const views = ordered.map((g, i) => {
    const runs = [...g.runs].sort((a, b) => b.created_at - a.created_at);
    const head = newestFinished(runs);
    let previous: PreviousComparison | null = null;
    for (let j = i - 1; j >= 0 && head !== null && previous === null; j--) {
      const earlier = ordered[j];
      const base = earlier ? newestFinished(earlier.runs) : null;
      if (earlier && base) previous = { release: earlier.release, base, head, href: compareHref(base.id, [head.id]) };
    }
    return { release: g.release, firstRunAt: g.first_run_at, runs, newestFinished: head, previous };
  });
  return views.reverse();
}
