'use client';

import { SLO_HINT } from '@kneeboard/contracts';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { readSloField, type ActiveSlo } from '../../lib/capacity-view.ts';
import type { SloSetting } from '../../lib/view-state.ts';
import '../run/capacity.css';

/**
 * The comparison's SLO field: capacity is compared at these SLOs for base and every head (the
 * lines are in the verdict banners). Read by the contracts' parser as the run page's field is; by
 * default the base run's own `slo` tag.
 */
export function CompareSloField({ slo, tag, updating = false, onChange }: { slo: ActiveSlo | null; tag: string | null; updating?: boolean; onChange: (setting: SloSetting) => void }) {
  const inputId = useId();
  const errorId = useId();
  const [text, setText] = useState(slo?.text ?? '');
  const [invalid, setInvalid] = useState<string | null>(null);
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
    <section className="panel capacity-panel compare-slo no-print" data-testid="compare-slo" aria-label="Capacity under an SLO">
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
        <span className="muted small" aria-live="polite">
          {updating ? 'judging every level…' : slo === null ? 'compare the capacity each side serves within them' : slo.source === 'tag' ? 'the base run’s own SLO (--slo)' : null}
        </span>
        {slo?.source === 'url' && tag !== null ? (
          <button type="button" className="link-button small" onClick={() => onChange(null)} data-testid="slo-reset">
            back to the base run’s SLO ({tag})
          </button>
        ) : null}
      </form>
      {invalid !== null ? (
        <p className="slo-error" id={errorId} role="alert" data-testid="slo-error">
          {invalid}
        </p>
      ) : null}
    </section>
  );
}
