'use client';

import type { ActiveSlo, CapacityView } from '../../lib/capacity-view.ts';
import './capacity.css';
import type { SloSetting } from '../../lib/view-state.ts';
import { SloForm } from './SloForm.tsx';

/**
 * Capacity under an SLO: the SLOs typed here (checked by the contracts' parser as they are
 * applied, its message naming the clause it refuses), then the one line a review asks for, with
 * the levels that were unclear or skipped named. The SLOs go to the URL (`slo=`); by default they
 * are the run's own `slo` tag.
 */
export function CapacityPanel({
  slo,
  tag,
  view,
  error,
  onChange,
}: {
  slo: ActiveSlo | null;
  /** The run's own `slo` tag (canonical), offered back when the reader has replaced it. */
  tag: string | null;
  view: CapacityView | null;
  error: string | null;
  onChange: (setting: SloSetting) => void;
}) {
  return (
    <section className="panel capacity-panel" data-testid="capacity" aria-label="Capacity under an SLO">
      <SloForm
        slo={slo}
        tag={tag}
        onChange={onChange}
        resetLabel="back to the run’s SLO"
        status={
          slo === null ? (
            <span className="muted small" data-testid="capacity-none">
              the highest load that meets them
            </span>
          ) : slo.source === 'tag' ? (
            <span className="muted small">
              the run’s own SLO (<code>--slo</code>)
            </span>
          ) : null
        }
      />
      {/* One row until there are SLOs, so the charts stay on the first screen. */}
      {slo === null ? null : error !== null ? (
        <p className="slo-error" role="alert">
          {error}
        </p>
      ) : view === null ? (
        <p className="muted small" aria-live="polite">
          Judging every level under {slo.text}…
        </p>
      ) : (
        <div className="capacity-answer">
          <p className={view.found ? 'capacity-line' : 'capacity-line capacity-line-none'} data-testid="capacity-line" aria-live="polite">
            {view.headline}
          </p>
          {view.unclear !== null ? (
            <p className="small" data-testid="capacity-unclear">
              {view.unclear}
            </p>
          ) : null}
          {view.skipped.length > 0 ? (
            <div className="small" data-testid="capacity-skipped">
              Skipped, never the evidence either way:
              <ul>
                {view.skipped.map((s) => (
                  <li key={s.level}>{s.text}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <details className="capacity-how small">
            <summary>How it was judged</summary>
            <p>{view.summary}</p>
            {view.warnings.length > 0 ? (
              <ul>
                {view.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            ) : null}
          </details>
        </div>
      )}
    </section>
  );
}
