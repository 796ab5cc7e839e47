import { describe, expect, it } from 'vitest';
import { ExpositionParser, MAX_BAD_EXAMPLES, MAX_LINE_CHARS, parseExposition, parseSampleLine, type Exposition } from '../src/exposition.ts';

// A body with every feature: HELP with escapes, TYPE, labels with all three escapes and a
// multi-byte character, a trailing comma, a timestamp, NaN and ±Inf, a comment, CRLF, a bad line.
const BODY = [
  '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\\nSecond \\\\ line.',
  '# TYPE process_cpu_seconds_total counter',
  'process_cpu_seconds_total 12.5',
  '# TYPE container_cpu_usage_seconds_total counter',
  'container_cpu_usage_seconds_total{container="search",path="C:\\\\x",msg="say \\"hi\\"\\nbye",name="café",} 3.25 1700000000123',
  '# a plain comment',
  'weird_gauge{a="1"} NaN',
  'up_bound +Inf\r',
  'low_bound -Inf',
  'this is { not a sample',
  '',
  '# TYPE process_resident_memory_bytes gauge',
  'process_resident_memory_bytes 1.2e+08',
].join('\n');

function expectBody(e: Exposition): void {
  expect(e.samples).toHaveLength(6);
  expect(e.samples[0]).toEqual({ name: 'process_cpu_seconds_total', labels: {}, value: 12.5 });
  expect(e.samples[1]).toEqual({
    name: 'container_cpu_usage_seconds_total',
    labels: { container: 'search', path: 'C:\\x', msg: 'say "hi"\nbye', name: 'café' },
    value: 3.25,
    timestampMs: 1700000000123,
  });
  expect(e.samples[2]!.value).toBeNaN();
  expect(e.samples[3]).toEqual({ name: 'up_bound', labels: {}, value: Infinity });
  expect(e.samples[4]!.value).toBe(-Infinity);
  expect(e.samples[5]).toEqual({ name: 'process_resident_memory_bytes', labels: {}, value: 1.2e8 });
  expect(e.types.get('process_cpu_seconds_total')).toBe('counter');
  expect(e.types.get('container_cpu_usage_seconds_total')).toBe('counter');
  expect(e.types.get('process_resident_memory_bytes')).toBe('gauge');
  expect(e.help.get('process_cpu_seconds_total')).toBe('Total user and system CPU time spent in seconds.\nSecond \\ line.');
  expect(e.bad).toEqual({ count: 1, examples: [{ line: 10, reason: 'bad value "is"', text: 'this is { not a sample' }] });
}

describe('parseExposition', () => {
  it('reads counters, gauges, labels with escapes, timestamps, NaN/±Inf, HELP and TYPE; counts the bad line', () => {
    expectBody(parseExposition(BODY));
    expectBody(parseExposition(`${BODY}\n`));
  });

  it('gives the same result with the bytes split at every boundary (inside UTF-8 characters too)', () => {
    const bytes = new TextEncoder().encode(BODY);
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const p = new ExpositionParser();
      p.push(bytes.subarray(0, cut));
      p.push(bytes.subarray(cut));
      expectBody(p.end());
    }
  });

  it('gives the same result fed one byte at a time', () => {
    const p = new ExpositionParser();
    for (const b of new TextEncoder().encode(BODY)) p.push(new Uint8Array([b]));
    expectBody(p.end());
  });

  it('counts every bad line but keeps only the first few, with line numbers', () => {
    const body = Array.from({ length: 12 }, (_, i) => `bad-name-${i} 1`).join('\n') + '\nok 1\n';
    const e = parseExposition(body);
    expect(e.samples).toEqual([{ name: 'ok', labels: {}, value: 1 }]);
    expect(e.bad.count).toBe(12);
    expect(e.bad.examples.map((x) => x.line)).toEqual([1, 2, 3, 4, 5].slice(0, MAX_BAD_EXAMPLES));
    expect(e.bad.examples[0]).toEqual({ line: 1, reason: 'bad metric name', text: 'bad-name-0 1' });
  });

  it('skips an over-long line as one bad line, however it is split, and reads the next', () => {
    const long = `x{a="${'y'.repeat(MAX_LINE_CHARS + 10)}"} 1`;
    for (const chunks of [[`${long}\nok 2\n`], [long.slice(0, 100), long.slice(100, MAX_LINE_CHARS + 5), long.slice(MAX_LINE_CHARS + 5), '\nok 2\n']]) {
      const p = new ExpositionParser();
      for (const c of chunks) p.push(c);
      const e = p.end();
      expect(e.samples).toEqual([{ name: 'ok', labels: {}, value: 2 }]);
      expect(e.bad.count).toBe(1);
      expect(e.bad.examples[0]!.reason).toMatch(/longer than/);
      expect(e.bad.examples[0]!.text).toHaveLength(200);
    }
  });

  it('rejects a TYPE with an unknown type and reads HELP/TYPE for names only', () => {
    const e = parseExposition('# TYPE a countr\n# TYPE 9a counter\n# HELP b\n# EOF\n');
    expect(e.bad.count).toBe(2);
    expect(e.bad.examples.map((x) => x.reason)).toEqual(['unknown type "countr" in # TYPE', 'bad metric name in # TYPE']);
    expect(e.help.get('b')).toBe('');
    expect(e.types.size).toBe(0);
  });
});

describe('parseSampleLine', () => {
  it.each([
    ['a 1', { name: 'a', labels: {}, value: 1 }],
    ['a:b_c 1e3', { name: 'a:b_c', labels: {}, value: 1000 }],
    ['a\t-0.5\t42', { name: 'a', labels: {}, value: -0.5, timestampMs: 42 }],
    ['a{} 1', { name: 'a', labels: {}, value: 1 }],
    ['a{ x = "1" , y="" } .5', { name: 'a', labels: { x: '1', y: '' }, value: 0.5 }],
    ['a{x="}{,="} 1', { name: 'a', labels: { x: '}{,=' }, value: 1 }],
    ['a{x="1"}2', { name: 'a', labels: { x: '1' }, value: 2 }],
    ['a inf', { name: 'a', labels: {}, value: Infinity }],
    ['a +INF -5', { name: 'a', labels: {}, value: Infinity, timestampMs: -5 }],
  ])('reads %j', (line, sample) => {
    expect(parseSampleLine(line)).toEqual(sample);
  });

  it.each([
    ['1a 1', 'bad metric name'],
    ['a-b 1', 'bad metric name'],
    ['a', 'no value'],
    ['a ', 'no value'],
    ['a one', 'bad value "one"'],
    ['a 0x10', 'bad value "0x10"'],
    ['a 1 2.5', 'bad timestamp "2.5"'],
    ['a 1 2 3', 'too many fields after the value'],
    ['a{x="1} 1', 'unterminated value of label x'],
    ['a{x="\\t"} 1', 'bad escape \\t in label x'],
    ['a{x=1} 1', 'expected " to open the value of label x'],
    ['a{x} 1', 'expected = after label x'],
    ['a{1x="1"} 1', 'bad label name'],
    ['a{x="1" y="2"} 1', 'expected , or } after a label'],
    ['a{x="1",x="2"} 1', 'duplicate label x'],
    ['a{x="1"', 'expected , or } after a label'],
  ])('rejects %j: %s', (line, reason) => {
    expect(parseSampleLine(line)).toBe(reason);
  });
});
