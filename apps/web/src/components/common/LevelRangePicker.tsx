'use client';

import type { LevelSelection } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { rangeSelection } from '../../lib/view-state.ts';

/**
 * The visible level range as two selects (from, to) over the swept levels. Both ends at the
 * extremes means every level (no `levels=` in the URL). A list from a URL (`levels=1,4,16`) is
 * shown as such until the range is changed.
 */
export function LevelRangePicker({
  parameter,
  levels,
  selection,
  onChange,
}: {
  parameter: string;
  levels: ReadonlyArray<number>;
  selection: LevelSelection | null;
  onChange: (sel: LevelSelection | null) => void;
}) {
  const lo = levels[0];
  const hi = levels[levels.length - 1];
  if (lo === undefined || hi === undefined) return null;
  const range = selection?.kind === 'range' ? selection : null;
  const from = range?.min ?? lo;
  const to = range?.max ?? hi;
  const set = (min: number, max: number) => onChange(rangeSelection(levels, min, max));
  return (
    <span className="control" data-testid="level-range">
      <span className="control-label">{parameter}</span>
      {selection?.kind === 'list' ? (
        <>
          <span className="tag mono" title="levels chosen in the URL">
            {selection.levels.map(formatLevel).join(', ')}
          </span>
          <button type="button" className="small-button" onClick={() => onChange(null)}>
            all
          </button>
        </>
      ) : (
        <>
          <select aria-label={`lowest ${parameter} shown`} value={from} onChange={(e) => set(Number(e.target.value), to)} data-testid="level-from">
            {levels.map((l) => (
              <option key={l} value={l}>
                {formatLevel(l)}
              </option>
            ))}
          </select>
          <span className="muted">to</span>
          <select aria-label={`highest ${parameter} shown`} value={to} onChange={(e) => set(from, Number(e.target.value))} data-testid="level-to">
            {levels.map((l) => (
              <option key={l} value={l}>
                {formatLevel(l)}
              </option>
            ))}
          </select>
        </>
      )}
    </span>
  );
}
