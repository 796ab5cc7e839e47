/**
 * Everything the analysis says qualifies its verdict (too few levels, a poor fit, failed requests,
 * generator-limited levels), listed in full: a verdict read without them can mislead.
 */
export function AnalysisWarnings({ warnings }: { warnings: ReadonlyArray<string> }) {
  return (
    <div className="analysis-warnings" data-testid="analysis-warnings" role="note">
      <div className="warnings-head">
        <span className="warn-icon" aria-hidden>
          !
        </span>
        Read with care
      </div>
      <ul>
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}
