import type { CompareResponse } from '@kneeboard/contracts';

/** How the verdicts were reached, in one line under the tables. */
export function StatsFootnote({ settings }: { settings: CompareResponse['settings'] }) {
  return (
    <p className="stats-foot muted small">
      Intervals: {Math.round(settings.confidence * 100)}% bootstrap over runs and the raw samples within them ({settings.resamples.toLocaleString('en-US')}{' '}
      resamples; the confidence holds for all the verdicts together, and few repeated runs widen it by Student&apos;s t). A change is called
      only when its interval excludes zero and it is at least {Math.round(settings.min_effect * 100)}%; anything else is{' '}
      <em>no significant change</em>. A level only one run swept has nothing to compare; a level where the load generator was the limit is{' '}
      <em>not comparable</em>.
    </p>
  );
}
