'use client';

/**
 * Ticking runs in a table of runs (the runs list, a service's releases) to compare them: a
 * checkbox per row, a "base" radio on each ticked row, and a sticky "Compare selected (n)" bar.
 * The rules (which run is the base, 2–8 runs, the link) are in `lib/run-selection.ts`.
 */
import Link from 'next/link';
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { compareSelection, toggleSelected, type SelectableRun } from '../../lib/run-selection.ts';

interface SelectionContext {
  selected: string[];
  base: string | null;
  toggle: (id: string) => void;
  markBase: (id: string) => void;
}

const Ctx = createContext<SelectionContext | null>(null);

export function RunSelectionProvider({ runs, children }: { runs: SelectableRun[]; children: ReactNode }) {
  const [selected, setSelected] = useState<string[]>([]);
  const [marked, setMarked] = useState<string | null>(null);
  const byId = useMemo(() => new Map(runs.map((r) => [r.id, r])), [runs]);
  const chosen = selected.flatMap((id) => byId.get(id) ?? []);
  const action = compareSelection(chosen, marked);
  const base = action.kind === 'empty' ? null : action.base;
  const ctx: SelectionContext = {
    selected,
    base,
    toggle: (id) => setSelected((s) => toggleSelected(s, id)),
    markBase: (id) => setMarked(id),
  };
  return (
    <Ctx.Provider value={ctx}>
      {children}
      {action.kind !== 'empty' ? (
        <div className="compare-selected panel" role="region" aria-label="compare selected runs" data-testid="compare-selected-bar" data-count={action.count}>
          {action.kind === 'ok' ? (
            <Link className="button primary" href={action.href} data-testid="compare-selected">
              Compare selected ({action.count})
            </Link>
          ) : (
            <button type="button" className="button primary" disabled data-testid="compare-selected" aria-describedby="compare-selected-why">
              Compare selected ({action.count})
            </button>
          )}
          <span id="compare-selected-why" className={action.kind === 'too-many' ? 'compare-selected-text warn' : 'compare-selected-text muted'} data-testid="compare-selected-text" aria-live="polite">
            {action.text}
            {action.kind === 'ok' ? <> · the base is marked in its row</> : null}
          </span>
          <button
            type="button"
            className="button"
            onClick={() => {
              setSelected([]);
              setMarked(null);
            }}
            data-testid="clear-selection"
          >
            Clear
          </button>
        </div>
      ) : null}
    </Ctx.Provider>
  );
}

/** The header cell over the checkboxes. */
export function SelectHead() {
  return (
    <th className="select-col">
      <span className="sr-only">Select to compare</span>
    </th>
  );
}

/** A row's checkbox and, once ticked, its "base" radio. Drawn above the row's stretched link. */
export function SelectRunCell({ id, label }: { id: string; label: string }) {
  const ctx = useContext(Ctx);
  if (!ctx) return <td />;
  const on = ctx.selected.includes(id);
  return (
    <td className="select-col">
      <span className="select-cell above">
        <input type="checkbox" checked={on} onChange={() => ctx.toggle(id)} aria-label={`Select ${label} to compare`} data-testid="select-run" />
        {on ? (
          <label className="base-radio" title="Compare the other selected runs against this one">
            <input type="radio" name="compare-base" checked={ctx.base === id} onChange={() => ctx.markBase(id)} aria-label={`${label} as the base`} data-testid="select-base" />
            base
          </label>
        ) : null}
      </span>
    </td>
  );
}
