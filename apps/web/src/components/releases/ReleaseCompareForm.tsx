import { RELEASE_REF_PREFIX } from '@kneeboard/contracts';
import type { ReleaseView } from '../../lib/releases.ts';

const finishedCount = (v: ReleaseView) => v.runs.filter((r) => r.status === 'finished').length;
const runs = (n: number) => (n === 1 ? '1 run' : `${n} runs`);

/**
 * "Compare release X with release Y", every finished run of each: a plain GET form to
 * `/compare?base=release:SERVICE@X&head=release:SERVICE@Y`, so it works before any script loads.
 * With repeats on both sides the intervals include the run-to-run noise. Offered when at least two
 * releases have a finished run; by default the newest such release against the one before it.
 */
export function ReleaseCompareForm({ service, views }: { service: string; views: ReadonlyArray<ReleaseView> }) {
  // Newest first, as the page lists them.
  const comparable = views.filter((v) => finishedCount(v) > 0);
  if (comparable.length < 2) return null;
  const value = (v: ReleaseView) => `${RELEASE_REF_PREFIX}${service}@${v.release}`;
  const options = comparable.map((v) => (
    <option key={v.release} value={value(v)}>
      {v.release} · {runs(finishedCount(v))}
    </option>
  ));
  return (
    <form className="panel release-compare" action="/compare" method="get" data-testid="release-compare">
      <h2 className="release-compare-title">Compare releases</h2>
      <label>
        <span className="control-label">release</span>
        <select name="head" defaultValue={value(comparable[0]!)} data-testid="release-compare-head">
          {options}
        </select>
      </label>
      <label>
        <span className="control-label">against</span>
        <select name="base" defaultValue={value(comparable[1]!)} data-testid="release-compare-base">
          {options}
        </select>
      </label>
      <button type="submit" className="button primary" data-testid="release-compare-go">
        Compare all their runs
      </button>
      <p className="muted small">
        Every finished run of each release (the newest 10). Repeats on both sides (<code>kneeboard sweep --repeat 3</code>) put the run-to-run
        noise inside the intervals.
      </p>
    </form>
  );
}
