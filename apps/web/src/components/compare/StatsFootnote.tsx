import type { CompareResponse } from '@kneeboard/contracts';
import { formatPercentSetting } from '@kneeboard/contracts/figures';

/** How the verdicts were reached, in one line under the tables. */
export function StatsFootnote({ settings }: { settings: CompareResponse['settings'] }) {
  return (
    <p className="stats-foot muted small">
      Intervals: {formatPercentSetting(settings.confidence)} on the log of head ÷ base (never below −100%), from the run-to-run spread (pooled across
      levels and both sides, or borrowed from earlier repeats) and each run&apos;s own sampling noise; the confidence holds for all the verdicts
      together, and Student&apos;s t covers a spread measured from few runs. A change is called
      only when its interval excludes zero and it is at least {formatPercentSetting(settings.min_effect)}; anything else is{' '}
      <em>no significant change</em>. A level only one run swept has nothing to compare; a level where the load generator was the limit is{' '}
      <em>not comparable</em>.
    </p>
  );
}
