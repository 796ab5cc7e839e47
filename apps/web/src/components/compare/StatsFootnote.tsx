import type { CompareResponse } from '@kneeboard/contracts';

/** How the verdicts were reached, in one line under the tables. */
export function StatsFootnote({ settings }: { settings: CompareResponse['settings'] }) {
  return (
    <p className="stats-foot muted small">
      Intervals: {Math.round(settings.confidence * 100)}% bootstrap over the raw samples ({settings.resamples.toLocaleString('en-US')} resamples,
      adjusted for the three metrics per level). A change is called only when its interval excludes zero and it is at least{' '}
      {Math.round(settings.min_effect * 100)}%; anything else is <em>no significant change</em>. A level only one run swept has nothing to compare.
    </p>
  );
}
