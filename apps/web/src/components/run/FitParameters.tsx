import type { UslFit } from '@kneeboard/contracts';
import { uslFitSummary } from '../../lib/usl.ts';

/** The USL fit's parameters with ± one standard error; each one explains itself on hover. `trusted` is the analysis' verdict on the fit. */
export function FitParameters({ fit, trusted, parameter }: { fit: UslFit; trusted: boolean; parameter: string }) {
  const summary = uslFitSummary(fit, trusted, parameter);
  return (
    <div className="fit" data-testid="usl-fit" data-model={summary.model}>
      <div className="fit-head">
        USL fit
        <span className={`fit-quality fit-${summary.quality}`}>{summary.quality === 'good' ? 'good fit' : 'poor fit'}</span>
      </div>
      <dl className="fit-params">
        {summary.rows.map((r) => (
          <div key={r.key} title={r.hint} data-param={r.key}>
            <dt>{r.symbol}</dt>
            <dd>
              {r.value}
              {r.unit ? <span className="unit"> {r.unit}</span> : null}
            </dd>
          </div>
        ))}
      </dl>
      {summary.note ? (
        <p className="fit-note" title={summary.note.hint} data-testid="usl-fit-note">
          {summary.note.text}
        </p>
      ) : null}
    </div>
  );
}
