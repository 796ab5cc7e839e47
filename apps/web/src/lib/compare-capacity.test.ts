import type { CapacityChange, HeadComparison } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { readSloField } from './capacity-view.ts';
import { capacityLine, costLines } from './compare-capacity.ts';
import { SLO_NONE } from './view-state.ts';

const capacity: CapacityChange = {
  slos: ['p99<=50ms'],
  base: { runs: 1, qps: 400, low: 400, high: 420, level: 16 },
  head: { runs: 1, qps: 448, low: 448, high: 470, level: 18 },
  change: 0.12,
  ci_low: 0.067,
  ci_high: 0.175,
  basis: 'brackets',
  summary: 'v1.6.2 serves +12% [+6.7%…+17.5%] within p99<=50ms: 448 against 400 req/s (1 base and 1 head run; no interval: single run — the range the brackets allow)',
};
const head = (over: Partial<HeadComparison>) => over as HeadComparison;

describe('capacityLine', () => {
  it('is the API’s sentence under the SLOs shown, and nothing under other SLOs or none', () => {
    expect(capacityLine(head({ capacity }), { text: 'p99<=50ms', clauses: [], source: 'url' })).toBe(capacity.summary);
    expect(capacityLine(head({ capacity }), { text: 'p99<=40ms', clauses: [], source: 'url' })).toBeNull();
    expect(capacityLine(head({ capacity }), null)).toBeNull();
    expect(capacityLine(head({}), { text: 'p99<=50ms', clauses: [], source: 'tag' })).toBeNull();
  });
});

describe('costLines', () => {
  it('lists the sentences; nothing without cost (runs without server metrics look as before)', () => {
    const cost = { levels: [{ level: 64, sentence: '+8.0% QPS for +31% CPU at 64', not_comparable: false }], basis: 'single run', note: 'n' } as unknown as HeadComparison['cost'];
    expect(costLines(head({ cost }))).toEqual({ sentences: [{ level: 64, text: '+8.0% QPS for +31% CPU at 64', notComparable: false }], note: 'n' });
    expect(costLines(head({}))).toBeNull();
  });
});

describe('readSloField', () => {
  it('reads the field as the run page does: canonical, the tag as the default, none, the refused clause named', () => {
    expect(readSloField(' p99 <= 0.05s, errors<=1% ', null)).toEqual({ ok: true, setting: 'p99<=50ms,errors<=1%', canonical: 'p99<=50ms,errors<=1%' });
    expect(readSloField('p99<=50ms', 'p99<=50ms')).toEqual({ ok: true, setting: null, canonical: 'p99<=50ms' });
    expect(readSloField('', 'p99<=50ms')).toEqual({ ok: true, setting: SLO_NONE, canonical: '' });
    expect(readSloField('', null)).toEqual({ ok: true, setting: null, canonical: '' });
    const bad = readSloField('p98<=50ms', null);
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : bad.error).toContain('"p98<=50ms"');
  });
});
