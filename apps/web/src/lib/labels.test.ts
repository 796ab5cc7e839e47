import { describe, expect, it } from 'vitest';
import { addLabel, removeLabel } from './labels.ts';

describe('labels', () => {
  it('adds a trimmed label once, ignoring case', () => {
    expect(addLabel(['baseline'], '  release   candidate ')).toEqual({ ok: true, labels: ['baseline', 'release candidate'] });
    expect(addLabel(['baseline'], 'Baseline')).toEqual({ ok: false, error: '“Baseline” is already there.' });
    expect(addLabel([], '   ')).toMatchObject({ ok: false });
    expect(addLabel([], 'x'.repeat(51))).toMatchObject({ ok: false, error: expect.stringContaining('50') });
    expect(addLabel(Array.from({ length: 20 }, (_, i) => `l${i}`), 'one more')).toMatchObject({ ok: false, error: expect.stringContaining('20') });
  });

  it('removes a label', () => {
    expect(removeLabel(['a', 'b'], 'a')).toEqual(['b']);
  });
});
