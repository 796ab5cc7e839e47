import { describe, expect, it } from 'vitest';
import { describeSlo, formatSlos, MAX_SLO_CLAUSES, parseSlos, SloParam, type SloClause } from '../src/index.ts';

/** The one table of the SLO syntax: text → clauses. The CLI, the API and the web app read through parseSlos. */
const GOOD: ReadonlyArray<readonly [string, SloClause[], string]> = [
  ['p99<=50ms', [{ metric: 'p99', max_ms: 50 }], 'p99<=50ms'],
  ['p99 <= 50 ms', [{ metric: 'p99', max_ms: 50 }], 'p99<=50ms'],
  ['P99<=50ms', [{ metric: 'p99', max_ms: 50 }], 'p99<=50ms'],
  ['p99≤50ms', [{ metric: 'p99', max_ms: 50 }], 'p99<=50ms'],
  ['p50<=0.5s', [{ metric: 'p50', max_ms: 500 }], 'p50<=500ms'],
  ['p90<=250us', [{ metric: 'p90', max_ms: 0.25 }], 'p90<=0.25ms'],
  ['p90<=250µs', [{ metric: 'p90', max_ms: 0.25 }], 'p90<=0.25ms'],
  ['p99.9<=1.5s', [{ metric: 'p99.9', max_ms: 1500 }], 'p99.9<=1500ms'],
  ['p999<=100ms', [{ metric: 'p99.9', max_ms: 100 }], 'p99.9<=100ms'],
  ['errors<=1%', [{ metric: 'errors', max_percent: 1 }], 'errors<=1%'],
  ['errors <= 0.5 %', [{ metric: 'errors', max_percent: 0.5 }], 'errors<=0.5%'],
  ['errors<=0%', [{ metric: 'errors', max_percent: 0 }], 'errors<=0%'],
  ['compute_p99<=40ms', [{ metric: 'compute_p99', max_ms: 40 }], 'compute_p99<=40ms'],
  ['queue_p50<=.5ms', [{ metric: 'queue_p50', max_ms: 0.5 }], 'queue_p50<=0.5ms'],
  [
    'p99<=50ms, errors<=1%,queue_p99<=10ms',
    [
      { metric: 'p99', max_ms: 50 },
      { metric: 'errors', max_percent: 1 },
      { metric: 'queue_p99', max_ms: 10 },
    ],
    'p99<=50ms,errors<=1%,queue_p99<=10ms',
  ],
];

/** Refused, with the clause the message must name. */
const BAD: ReadonlyArray<readonly [string, string, RegExp]> = [
  ['p98<=50ms', 'p98<=50ms', /unknown metric "p98"/],
  ['p99<=-1ms', 'p99<=-1ms', /must not be negative/],
  ['p99<=50', 'p99<=50', /needs a unit: ms, s or us/],
  ['errors<=1', 'errors<=1', /needs a unit.*%/],
  ['errors<=5ms', 'errors<=5ms', /errors are in %/],
  ['p99<=50%', 'p99<=50%', /unknown unit "%"/],
  ['p99<=50min', 'p99<=50min', /unknown unit "min"/],
  ['p99<=0ms', 'p99<=0ms', /above 0/],
  ['p99<=2e3ms', 'p99<=2e3ms', /unknown unit "e3ms"/],
  ['errors<=101%', 'errors<=101%', /at most 100%/],
  ['p99>=50ms', 'p99>=50ms', /upper bound/],
  ['p99<50ms', 'p99<50ms', /upper bound/],
  ['p99 50ms', 'p99 50ms', /upper bound/],
  ['p99<=ms', 'p99<=ms', /not a number/],
  ['p99<=50ms,', '', /is empty/],
  ['p99<=50ms,,p50<=5ms', '', /is empty/],
  ['<=50ms', '<=50ms', /does not start with a metric/],
  ['p99<=50ms,p99<=40ms', 'p99<=40ms', /given twice/],
  ['p99<=2days', 'p99<=2days', /unknown unit/],
  ['p99<=100000s', 'p99<=100000s', /at most a day/],
];

describe('parseSlos', () => {
  it.each(GOOD)('reads %s', (text, clauses, canonical) => {
    const parsed = parseSlos(text);
    expect(parsed).toEqual({ ok: true, clauses });
    if (!parsed.ok) return;
    expect(formatSlos(parsed.clauses)).toBe(canonical);
    // One list, one spelling: the canonical text reads back as the same clauses.
    expect(parseSlos(canonical)).toEqual(parsed);
  });

  it.each(BAD)('refuses %s, naming the clause', (text, clause, why) => {
    const parsed = parseSlos(text);
    if (parsed.ok) throw new Error(`${text} should be refused`);
    expect(parsed.clause).toBe(clause);
    expect(parsed.error).toContain(`"${clause}"`);
    expect(parsed.error).toMatch(why);
  });

  it('takes repeated texts (the CLI repeats --slo) as one list', () => {
    expect(parseSlos(['p99<=50ms', 'errors<=1%,p50<=10ms'])).toEqual({
      ok: true,
      clauses: [
        { metric: 'p99', max_ms: 50 },
        { metric: 'errors', max_percent: 1 },
        { metric: 'p50', max_ms: 10 },
      ],
    });
    const twice = parseSlos(['p99<=50ms', 'p99<=60ms']);
    expect(twice.ok).toBe(false);
  });

  it(`refuses more than ${MAX_SLO_CLAUSES} clauses, naming the first one too many`, () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `p99<=${i + 1}ms`).join(',');
    const parsed = parseSlos(twenty);
    if (parsed.ok) throw new Error('20 clauses should be refused');
    expect(parsed.clause).toBe('p99<=9ms');
    expect(parsed.error).toMatch(/too many clauses \(20\): at most 8/);
  });

  it('refuses a text longer than any honest list, without reading it', () => {
    const parsed = parseSlos(`p99<=${'1'.repeat(1000)}ms`);
    expect(parsed.ok).toBe(false);
  });

  it('describes a clause for people', () => {
    expect(describeSlo({ metric: 'p99', max_ms: 50 })).toBe('p99 ≤ 50 ms');
    expect(describeSlo({ metric: 'errors', max_percent: 0.5 })).toBe('errors ≤ 0.5%');
  });
});

describe('SloParam', () => {
  it('reads one text or a repeated parameter into clauses', () => {
    expect(SloParam.parse('p99<=50ms,errors<=1%')).toEqual([
      { metric: 'p99', max_ms: 50 },
      { metric: 'errors', max_percent: 1 },
    ]);
    expect(SloParam.parse(['p99<=50ms', 'p50<=5ms'])).toHaveLength(2);
  });

  it('refuses with the clause named in the issue', () => {
    const result = SloParam.safeParse('p99<=50ms,p98<=10ms');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/SLO clause "p98<=10ms": unknown metric/);
  });
});
