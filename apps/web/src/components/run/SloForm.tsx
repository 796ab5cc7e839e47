'use client';

import { SLO_HINT } from '@kneeboard/contracts';
import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { readSloField, type ActiveSlo } from '../../lib/capacity-view.ts';
import type { SloSetting } from '../../lib/view-state.ts';

/**
 * The SLO field of the run page and the comparison: the text is read by the contracts' parser as
 * it is applied (its message naming the clause it refuses), shown canonical once applied, and
 * offers the run's own `slo` tag back when the reader has replaced it. What the SLOs are judged
 * against (`status`, the reset's wording) is the page's.
 */
export function SloForm({
  slo,
  tag,
  onChange,
  status,
  resetLabel,
}: {
  slo: ActiveSlo | null;
  /** The run's own `slo` tag (canonical), offered back when the reader has replaced it. */
  tag: string | null;
  onChange: (setting: SloSetting) => void;
  /** Beside the button: what the SLOs are for, or where they came from. */
  status: ReactNode;
  /** The reset button's words, e.g. "back to the run’s SLO". */
  resetLabel: string;
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
    <>
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
        {status}
        {slo?.source === 'url' && tag !== null ? (
          <button type="button" className="link-button small" onClick={() => onChange(null)} data-testid="slo-reset">
            {resetLabel} ({tag})
          </button>
        ) : null}
      </form>
      {invalid !== null ? (
        <p className="slo-error" id={errorId} role="alert" data-testid="slo-error">
          {invalid}
        </p>
      ) : null}
    </>
  );
}
