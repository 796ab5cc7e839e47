import { describe, expect, it } from 'vitest';
import { csvCell } from '../src/services/curve-csv.ts';

describe('csvCell', () => {
  it('neutralises text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    for (const f of ['+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\r=1']) expect(csvCell(f).replace(/^"/, '').startsWith("'")).toBe(true);
  });

  it('quotes commas, quotes and line breaks; leaves numbers and plain text alone', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(-3.5)).toBe('-3.5');
    expect(csvCell(null)).toBe('');
    expect(csvCell('v1.6.2')).toBe('v1.6.2');
  });
});
