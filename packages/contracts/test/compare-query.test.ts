import { describe, expect, it } from 'vitest';
import { CompareQuery, formatRunGroupRef, MAX_RUNS_PER_GROUP, parseReleaseRef } from '../src/index.ts';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

describe('CompareQuery sides', () => {
  it('reads one run, a group of runs and a release', () => {
    const q = CompareQuery.parse({ base: `${A},${B}`, head: ['release:checkout@eu@v1.2', B] });
    expect(q.base).toEqual({ kind: 'runs', ids: [A, B] });
    // The release form splits at the last @: a service may contain one, a release may not.
    expect(q.head[0]).toEqual({ kind: 'release', service: 'checkout@eu', release: 'v1.2' });
    expect(q.head[1]).toEqual({ kind: 'runs', ids: [B] });
    expect(q.min_effect).toBe(0.05);
  });

  it('writes a side back as it was read', () => {
    for (const text of [A, `${A},${B}`, 'release:checkout@v1.2']) {
      const q = CompareQuery.parse({ base: text, head: A });
      expect(formatRunGroupRef(q.base)).toBe(text);
    }
  });

  it('names the field and the form when a side cannot be read', () => {
    for (const [base, message] of [
      ['release:checkout', 'release:SERVICE@RELEASE'],
      ['release:@v1', 'release:SERVICE@RELEASE'],
      ['release:svc@', 'release:SERVICE@RELEASE'],
      ['not-a-run', 'not a run id'],
      [`${A},${A}`, 'appears twice'],
      [Array.from({ length: MAX_RUNS_PER_GROUP + 1 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(','), `at most ${MAX_RUNS_PER_GROUP}`],
    ] as const) {
      const r = CompareQuery.safeParse({ base, head: B });
      expect(r.success, base).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(['base']);
      expect(r.error?.issues[0]?.message).toContain(message);
    }
    const h = CompareQuery.safeParse({ base: A, head: [B, 'release:x'] });
    expect(h.error?.issues[0]?.path).toEqual(['head', 1]);
  });

  it('parseReleaseRef refuses text without the prefix', () => {
    expect(parseReleaseRef('checkout@v1')).toBeNull();
    expect(parseReleaseRef('release: checkout @ v1 ')).toEqual({ service: 'checkout', release: 'v1' });
  });
});
