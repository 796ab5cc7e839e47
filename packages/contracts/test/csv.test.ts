import { describe, expect, it } from 'vitest';
import { csvCell, csvText } from '../src/csv.ts';

describe('csvCell (the rule every CSV follows)', () => {
  it('neutralises text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    for (const f of ['+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\r=1']) expect(csvCell(f).replace(/^"/, '').startsWith("'")).toBe(true);
  });

  it('quotes commas, quotes and line breaks; leaves numbers and plain text alone', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(-3.5)).toBe('-3.5');
    expect(csvCell(0.123456)).toBe('0.12');
    expect(csvCell(null)).toBe('');
    expect(csvCell('v1.6.2')).toBe('v1.6.2');
  });

  it('joins rows with CRLF', () => {
    expect(csvText([['a', 1], ['=b', null]])).toBe("a,1\r\n'=b,\r\n");
  });
});
