import { describe, expect, it } from 'vitest';
import { compareSelection, MAX_SELECTED, selectionBase, toggleSelected } from './run-selection.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const run = (n: number, created: number) => ({ id: id(n), created_at: created });

describe('run selection', () => {
  it('toggles in tick order', () => {
    expect(toggleSelected([], 'a')).toEqual(['a']);
    expect(toggleSelected(['a', 'b'], 'c')).toEqual(['a', 'b', 'c']);
    expect(toggleSelected(['a', 'b', 'c'], 'b')).toEqual(['a', 'c']);
  });

  it('takes the oldest-created run as the base unless another is marked', () => {
    const sel = [run(1, 300), run(2, 100), run(3, 200)];
    expect(selectionBase(sel, null)).toBe(id(2));
    expect(selectionBase(sel, id(3))).toBe(id(3));
    // a marked base that was unticked no longer counts
    expect(selectionBase(sel, id(9))).toBe(id(2));
    expect(selectionBase([], id(1))).toBeNull();
  });

  it('links 2–8 runs to the comparison, base first and heads oldest first', () => {
    const s = compareSelection([run(1, 300), run(2, 100), run(3, 200)], null);
    expect(s.kind).toBe('ok');
    if (s.kind !== 'ok') return;
    expect(s.base).toBe(id(2));
    expect(s.heads).toEqual([id(3), id(1)]);
    expect(s.href).toBe(`/compare?base=${id(2)}&head=${id(3)}&head=${id(1)}`);
    const marked = compareSelection([run(1, 300), run(2, 100)], id(1));
    expect(marked.kind === 'ok' && marked.href).toBe(`/compare?base=${id(1)}&head=${id(2)}`);
  });

  it('explains too few and too many', () => {
    expect(compareSelection([], null)).toEqual({ kind: 'empty' });
    expect(compareSelection([run(1, 1)], null).kind).toBe('too-few');
    const nine = Array.from({ length: MAX_SELECTED + 1 }, (_, i) => run(i + 1, i));
    const s = compareSelection(nine, null);
    expect(s.kind).toBe('too-many');
    expect(s.kind === 'too-many' && s.text).toMatch(/at most 8 runs.*untick 1/);
    expect(compareSelection(nine.slice(0, MAX_SELECTED), null).kind).toBe('ok');
  });
});
