import { describe, expect, it } from 'vitest';
import { matches, parseSelector, parseSelectors } from '../src/selector.ts';

describe('parseSelector', () => {
  it('reads the defaults', () => {
    expect(parseSelectors([]).map(({ alias, fn, metric, matchers }) => ({ alias, fn, metric, matchers }))).toEqual([
      { alias: 'cpu', fn: 'rate', metric: 'process_cpu_seconds_total', matchers: [] },
      { alias: 'mem', fn: 'max', metric: 'process_resident_memory_bytes', matchers: [] },
    ]);
  });

  it('reads label matchers with = and != and quoted escapes', () => {
    const s = parseSelector(' cpu = rate( container_cpu_usage_seconds_total{container="search", pod!="a\\"b\\\\c",} ) ');
    expect(s).toMatchObject({
      alias: 'cpu',
      fn: 'rate',
      metric: 'container_cpu_usage_seconds_total',
      matchers: [
        { label: 'container', op: '=', value: 'search' },
        { label: 'pod', op: '!=', value: 'a"b\\c' },
      ],
    });
    expect(parseSelector('m=mean(g{})').matchers).toEqual([]);
    expect(parseSelector('q=mean(g{x="{}),"})').matchers).toEqual([{ label: 'x', op: '=', value: '{}),' }]);
  });

  it.each([
    ['rate(x)', /expected alias=fn/],
    ['cpu=sum(x)', /unknown function "sum"/],
    ['1cpu=rate(x)', /bad alias/],
    ['cpu=rate(9x)', /bad metric name/],
    ['cpu=rate(x{a=~"b"})', /only = and != are supported/],
    ['cpu=rate(x{a="b})', /unterminated/],
    ['cpu=rate(x{a=b})', /double quotes/],
    ['cpu=rate(x{a="b" c="d"})', /expected , between/],
    ['cpu=rate(x{a="\\t"})', /bad escape/],
    ['cpu=rate(x[15s])', /bad metric name "x\[15s\]"/],
  ])('rejects %j naming the problem', (text, message) => {
    expect(() => parseSelector(text)).toThrow(message);
  });

  it('rejects an alias used twice', () => {
    expect(() => parseSelectors(['a=max(x)', 'a=mean(y)'])).toThrow(/alias "a" is used twice/);
  });
});

describe('matches', () => {
  const s = parseSelector('cpu=rate(c{container="search",pod!=""})');
  it.each([
    ['c', { container: 'search', pod: 'p1' }, true],
    ['c', { container: 'search' }, false], // a missing label equals "", which pod!="" excludes
    ['c', { container: 'db', pod: 'p1' }, false],
    ['d', { container: 'search', pod: 'p1' }, false],
  ])('%s %j → %s', (name, labels, want) => {
    expect(matches(s, name, labels)).toBe(want);
  });
});
