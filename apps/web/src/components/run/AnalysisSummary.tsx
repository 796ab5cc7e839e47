import type { LoadModel, RunAnalysis } from '@kneeboard/contracts';
import { kneeEvidence } from '../../lib/knee.ts';
import { AnalysisWarnings } from './AnalysisWarnings.tsx';
import { FitParameters } from './FitParameters.tsx';

/**
 * What the curve says, in one sentence, at the top of the run page: the verdict, the knee's reason
 * beneath it, the evidence behind the knee (folded away), the USL fit's parameters and every
 * warning that qualifies them. It re-renders with each live snapshot, so it firms up as levels arrive.
 */
export function AnalysisSummary({ analysis, parameter, loadModel }: { analysis: RunAnalysis; parameter: string; loadModel: LoadModel }) {
  const evidence = kneeEvidence(analysis, parameter);
  return (
    <section className="panel analysis" data-testid="analysis" aria-label="Analysis">
      <div className="analysis-main">
        <p className="verdict" data-testid="verdict" aria-live="polite">
          {analysis.verdict}
        </p>
        {analysis.knee ? (
          <p className="knee-reason" data-testid="knee-reason">
            {analysis.knee.reason}
          </p>
        ) : null}
        {evidence.length > 0 ? (
          <details className="evidence" data-testid="knee-evidence">
            <summary>How we found it</summary>
            <ul>
              {evidence.map((e) => (
                <li key={`${e.method}-${e.level}`} data-method={e.method} className={e.chosen ? 'chosen' : undefined}>
                  <span className="evidence-method">{e.methodLabel}</span>
                  <span className="evidence-arrow" aria-hidden>
                    →
                  </span>
                  <span className="evidence-level">{e.levelText}</span>
                  {e.chosen ? <span className="evidence-chosen">the knee</span> : null}
                  <span className="evidence-reason">{e.reason}</span>
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </div>
      <div className="analysis-fit">
        {analysis.usl ? (
          <FitParameters fit={analysis.usl} trusted={analysis.usl_trusted} untrustedReason={analysis.usl_untrusted_reason ?? null} parameter={parameter} />
        ) : (
          <p className="muted small" data-testid="usl-fit-none">
            {loadModel === 'open'
              ? 'No USL fit: the USL models concurrent clients, and this run’s level is an offered rate.'
              : 'No USL fit yet: it needs at least 3 completed levels.'}
          </p>
        )}
      </div>
      {analysis.warnings.length > 0 ? <AnalysisWarnings warnings={analysis.warnings} /> : null}
    </section>
  );
}
