import type { EndpointAnalysis, RunDetail } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { liveRunAt } from '../../e2e/fixture-data.ts';
import { isNewer, keepEndpoints, namesOf, parseRunDetail } from './live.ts';

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

describe('keepEndpoints', () => {
  const t0Run = liveRunAt(2, t0);
  const names = [
    { name: 'cart', requests: 40 },
    { name: 'search', requests: 60 },
  ];
  const endpoints: EndpointAnalysis = {
    level: 2,
    level_is_knee: false,
    endpoints: [
      { name: 'cart', requests: 40, knee_level: null, p99_ms: 90 },
      { name: 'search', requests: 60, knee_level: null, p99_ms: 30 },
    ],
    saturates_first: null,
    dominates_p99: 'cart',
    summary: 'cart dominates p99.',
  };
  const withNames: RunDetail = { ...t0Run, names, endpoints };

  it('keeps the last names and analysis through a snapshot without them', () => {
    const next = liveRunAt(3, t0);
    const kept = keepEndpoints(withNames, next);
    expect(kept.names).toBe(names);
    expect(kept.endpoints).toBe(endpoints);
    expect(kept.curve).toBe(next.curve);
  });

  it('takes a snapshot’s own names and analysis when it has them, and leaves a run without names as it came', () => {
    const newer: RunDetail = { ...liveRunAt(3, t0), names: [{ name: 'cart', requests: 50 }], endpoints: { ...endpoints, dominates_p99: 'search' } };
    expect(keepEndpoints(withNames, newer)).toBe(newer);
    const plain = liveRunAt(3, t0);
    const kept = keepEndpoints(liveRunAt(2, t0), plain);
    expect(kept).toBe(plain);
    expect(Object.keys(kept)).not.toContain('endpoints');
    expect(Object.keys(kept)).not.toContain('names');
  });

  it('falls back to the analysed endpoints’ counts when no names came yet', () => {
    expect(namesOf({ endpoints })).toEqual(names);
    expect(namesOf({ names: [{ name: 'x', requests: 1 }], endpoints })).toEqual([{ name: 'x', requests: 1 }]);
    expect(namesOf({})).toEqual([]);
  });
});
