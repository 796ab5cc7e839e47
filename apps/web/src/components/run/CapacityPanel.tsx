'use client';

import { SLO_HINT } from '@kneeboard/contracts';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { readSloField, type ActiveSlo, type CapacityView } from '../../lib/capacity-view.ts';
import './capacity.css';
import type { SloSetting } from '../../lib/view-state.ts';

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
  const inputId = useId();
  const errorId = useId();
  const [text, setText] = useState(slo?.text ?? '');
  const [invalid, setInvalid] = useState<string | null>(null);
  // The SLOs can change from elsewhere (the run's tag arriving, a reset): the field follows.
  useEffect(() => {
    setText(slo?.text ?? '');
    setInvalid(null);
  }, [slo?.text]);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const read = readSloField(text, tag);
    if (!read.ok) {
      setInvalid(read.error);
      return;
    }
    setInvalid(null);
    setText(read.canonical);
    onChange(read.setting);
  };

  return (
    <section className="panel capacity-panel" data-testid="capacity" aria-label="Capacity under an SLO">
      <form className="slo-form" onSubmit={apply} noValidate>
        <label htmlFor={inputId}>SLO</label>
        <input
          id={inputId}
          type="text"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="p99<=50ms, errors<=1%"
          spellCheck={false}
          autoComplete="off"
          aria-invalid={invalid !== null}
          aria-describedby={invalid !== null ? errorId : undefined}
          title={SLO_HINT}
          data-testid="slo-input"
        />
        <button type="submit" className="small-button" data-testid="slo-apply">
          Apply
        </button>
        {slo === null ? (
          <span className="muted small" data-testid="capacity-none">
            the highest load that meets them
          </span>
        ) : null}
        {slo?.source === 'tag' ? <span className="muted small">the run’s own SLO (<code>--slo</code>)</span> : null}
        {slo?.source === 'url' && tag !== null ? (
          <button type="button" className="link-button small" onClick={() => onChange(null)} data-testid="slo-reset">
            back to the run’s SLO ({tag})
          </button>
        ) : null}
      </form>
      {invalid !== null ? (
        <p className="slo-error" id={errorId} role="alert" data-testid="slo-error">
          {invalid}
        </p>
      ) : null}
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
