import type { RunDetail } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { liveRunAt } from '../../e2e/fixture-data.ts';
import { isNewer, parseRunDetail } from './live.ts';

const t0 = 1_700_000_000_000;

describe('parseRunDetail', () => {
  it('accepts a snapshot as text or as a parsed body', () => {
    const d = liveRunAt(3, t0);
    const fromText = parseRunDetail(JSON.stringify(d));
    expect(fromText.ok && fromText.detail.curve.length).toBe(4);
    expect(parseRunDetail(d).ok).toBe(true);
  });

  it('rejects non-JSON and wrong shapes with a reason', () => {
    const bad = parseRunDetail('{nope');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/not JSON/);
    const wrong = parseRunDetail({ run: {}, steps: [], curve: [] });
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.error).toMatch(/run\./);
  });
});

describe('isNewer', () => {
  const at = (tick: number): RunDetail => liveRunAt(tick, t0);

  it('accepts progress and the finish', () => {
    expect(isNewer(at(1), at(2))).toBe(true);
    expect(isNewer(at(2), at(100))).toBe(true);
  });

  it('ignores an older response that arrives late', () => {
    expect(isNewer(at(3), at(2))).toBe(false);
    expect(isNewer(at(100), at(5))).toBe(false); // finished never goes back to running
  });

  it('ignores another run', () => {
    const other = structuredClone(at(2));
    other.run.id = '00000000-0000-4000-8000-0000000000aa';
    expect(isNewer(at(1), other)).toBe(false);
  });

  it('accepts a same-length curve only when its sample count did not shrink', () => {
    const a = at(2);
    const grown = structuredClone(a);
    grown.curve[grown.curve.length - 1]!.requests += 10;
    expect(isNewer(a, grown)).toBe(true);
    expect(isNewer(grown, a)).toBe(false);
  });
});
