import { describe, expect, it } from 'vitest';
import { CreateRunBody, UpdateRunBody } from '../src/run.ts';
import { LINE, NONBLANK_LINE, textProblem } from '../src/text.ts';

describe('textProblem', () => {
  it('accepts ordinary text in any script, emoji included', () => {
    for (const t of ['checkout-api', 'v1.6.2-rc.1', 'Größe', 'שלום', '检索', 'rocket 🚀']) expect(textProblem(t)).toBeNull();
  });

  it('names lone surrogates, controls and bidi overrides with their code point', () => {
    expect(textProblem('x\ud800')).toMatch(/lone UTF-16 surrogate \(U\+D800\) at 1/);
    expect(textProblem('\udc00')).toMatch(/U\+DC00/);
    expect(textProblem('a\u0000')).toMatch(/control character U\+0000 at 1/);
    expect(textProblem('a\u009b')).toMatch(/U\+009B/);
    expect(textProblem('a\u2028b')).toMatch(/U\+2028/);
    expect(textProblem('\u202eevil')).toMatch(/bidirectional override U\+202E at 0/);
    expect(textProblem('\u2069')).toMatch(/U\+2069/);
  });

  it('refuses U+FFFD, the mark of bytes that were not UTF-8, anywhere', () => {
    expect(textProblem('agent-\ufffd\ufffd')).toMatch(/U\+FFFD at 6.*not valid UTF-8/);
    expect(textProblem('a note \ufffd', true)).toMatch(/U\+FFFD/);
  });

  it('refuses a name that is there but shows nothing; a note may be blank', () => {
    for (const t of ['\u200b', ' \u200b ', '\u2060\ufeff', '\u00ad', '\u3164', '\u2800', '\u200d\u200c', '\u00a0\u3000']) {
      expect(textProblem(t)).toMatch(/no visible character/);
    }
    for (const t of ['', 'a\u200b', '\u200bx', '👩\u200d💻', 'é', '.']) expect(textProblem(t)).toBeNull();
    expect(textProblem('\u200b', true)).toBeNull();
    expect(CreateRunBody.safeParse({ service: '\u200b', release: 'v1' }).success).toBe(false);
    expect(CreateRunBody.safeParse({ service: 's', release: 'v1', tags: { env: '\u200b' } }).success).toBe(false);
    expect(CreateRunBody.safeParse({ service: 's', release: 'v1', name: '\u2060' }).success).toBe(false);
  });

  it('keeps the OpenAPI patterns in step with the rules', () => {
    const line = new RegExp(LINE.pattern);
    const nonblank = new RegExp(NONBLANK_LINE.pattern);
    expect(line.test('')).toBe(true);
    expect(line.test('svc')).toBe(true);
    expect(line.test('\u200b')).toBe(false);
    expect(line.test('a\ufffd')).toBe(false);
    expect(nonblank.test(' \u200b')).toBe(false);
    expect(nonblank.test(' x')).toBe(true);
    // The pattern and the rule agree on every character of the Basic Multilingual Plane, alone.
    const disagree: number[] = [];
    for (let cp = 0; cp < 0x10000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCharCode(cp);
      if (line.test(ch) !== (textProblem(ch) === null)) disagree.push(cp);
    }
    expect(disagree).toEqual([]);
  });

  it('lets multi-line text break lines and tab, nothing more', () => {
    expect(textProblem('a\n\tb\r\n', true)).toBeNull();
    expect(textProblem('a\n', false)).toMatch(/U\+000A/);
    expect(textProblem('a\u0007', true)).toMatch(/U\+0007/);
  });

  it('is applied by the run schemas', () => {
    expect(CreateRunBody.safeParse({ service: 'a\u202e', release: 'v1' }).success).toBe(false);
    expect(UpdateRunBody.safeParse({ note: 'two\nlines' }).success).toBe(true);
    expect(UpdateRunBody.safeParse({ labels: ['a\u0000'] }).success).toBe(false);
  });

  // Schemathesis found it: the OpenAPI maxLength is on the string as sent, so the limit is checked
  // before trimming (a label of 51 characters with a leading space is too long, as the document says).
  it('checks the length before trimming, as the OpenAPI document states it', () => {
    expect(UpdateRunBody.safeParse({ labels: [` ${'x'.repeat(50)}`] }).success).toBe(false);
    expect(UpdateRunBody.safeParse({ labels: [` ${'x'.repeat(49)}`] }).data?.labels).toEqual(['x'.repeat(49)]);
    expect(CreateRunBody.safeParse({ service: ` ${'s'.repeat(200)}`, release: 'v1' }).success).toBe(false);
  });
});
