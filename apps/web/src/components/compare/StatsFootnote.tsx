import type { CompareResponse } from '@kneeboard/contracts';

/** How the verdicts were reached, in one line under the tables. */
export function StatsFootnote({ settings }: { settings: CompareResponse['settings'] }) {
  return (
    <p className="stats-foot muted small">
      Intervals: {Math.round(settings.confidence * 100)}% on the log of head ÷ base (never below −100%), from the run-to-run spread (pooled across
      levels and both sides, or borrowed from earlier repeats) and each run&apos;s own sampling noise; the confidence holds for all the verdicts
      together, and Student&apos;s t covers a spread measured from few runs. A change is called
      only when its interval excludes zero and it is at least {Math.round(settings.min_effect * 100)}%; anything else is{' '}
      <em>no significant change</em>. A level only one run swept has nothing to compare; a level where the load generator was the limit is{' '}
      <em>not comparable</em>.
    </p>
  );
}
