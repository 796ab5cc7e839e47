import type { UslFit } from '@kneeboard/contracts';
import { uslFitSummary } from '../../lib/usl.ts';

/**
 * The USL fit's parameters with ± one standard error; each one explains itself on hover. `trusted`
 * is the analysis' verdict on the fit, `untrustedReason` its reason (shown on hover of the tag and
 * of the note; the full sentence is also among the warnings).
 */
export function FitParameters({
  fit,
  trusted,
  parameter,
  untrustedReason = null,
}: {
  fit: UslFit;
  trusted: boolean;
  parameter: string;
  untrustedReason?: string | null;
}) {
  const summary = uslFitSummary(fit, trusted, parameter, untrustedReason);
  return (
    <div className="fit" data-testid="usl-fit" data-model={summary.model}>
      <div className="fit-head">
        USL fit
        <span className={`fit-quality fit-${summary.quality}`} title={summary.distrust?.hint}>
          {summary.quality === 'good' ? 'good fit' : 'poor fit'}
        </span>
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
      {summary.distrust ? (
        <p className="fit-note" title={summary.distrust.hint} data-testid="usl-fit-distrust">
          {summary.distrust.text}
        </p>
      ) : null}
    </div>
  );
}
