/**
 * Picking runs to compare from a table of runs (the runs list, a service's releases): which runs
 * are ticked, which one is the base, and what the "Compare selected" action says or links to.
 * Selection is component state (it is not a view to share); this module holds its rules.
 */
import { MAX_COMPARED_HEADS } from '@kneeboard/contracts';
import { compareViewPath, DEFAULT_MIN_EFFECT, DEFAULT_SETTINGS } from './view-state.ts';

/** One base and up to MAX_COMPARED_HEADS heads: 8. */
export const MAX_SELECTED = MAX_COMPARED_HEADS + 1;
export const MIN_SELECTED = 2;

export interface SelectableRun {
  id: string;
  created_at: number;
}

export type CompareSelection =
  | { kind: 'empty' }
  | { kind: 'too-few'; count: number; base: string; text: string }
  | { kind: 'too-many'; count: number; base: string; text: string }
  | { kind: 'ok'; count: number; base: string; heads: string[]; href: string; text: string };

/** Tick or untick a run, keeping the order in which runs were ticked. */
export function toggleSelected(selected: ReadonlyArray<string>, id: string): string[] {
  return selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id];
}

/** The base: the one the user marked, if still selected; otherwise the oldest-created selected run. */
export function selectionBase(selected: ReadonlyArray<SelectableRun>, marked: string | null): string | null {
  if (selected.length === 0) return null;
  if (marked !== null && selected.some((r) => r.id === marked)) return marked;
  return oldestFirst(selected)[0]!.id;
}

function oldestFirst(runs: ReadonlyArray<SelectableRun>): SelectableRun[] {
  // A stable sort: runs created at the same moment keep the order they were ticked in.
  return [...runs].sort((a, b) => a.created_at - b.created_at);
}

/**
 * What the action shows for the selected runs (in tick order). 2–8 runs: a link to the
 * comparison, the base first and the heads oldest first; otherwise a sentence saying why not.
 */
export function compareSelection(selected: ReadonlyArray<SelectableRun>, marked: string | null): CompareSelection {
  const count = selected.length;
  const base = selectionBase(selected, marked);
  if (base === null) return { kind: 'empty' };
  if (count < MIN_SELECTED) return { kind: 'too-few', count, base, text: 'Select one more run to compare.' };
  if (count > MAX_SELECTED) {
    return { kind: 'too-many', count, base, text: `A comparison holds at most ${MAX_SELECTED} runs (one base and ${MAX_COMPARED_HEADS} others): untick ${count - MAX_SELECTED}.` };
  }
  const heads = oldestFirst(selected)
    .map((r) => r.id)
    .filter((id) => id !== base);
  const href = compareViewPath({ ...DEFAULT_SETTINGS, base, heads, minEffect: DEFAULT_MIN_EFFECT });
  return { kind: 'ok', count, base, heads, href, text: `${heads.length} ${heads.length === 1 ? 'run' : 'runs'} against the base` };
}
