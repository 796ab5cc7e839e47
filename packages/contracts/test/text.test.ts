import { describe, expect, it } from 'vitest';
import { CreateRunBody, UpdateRunBody } from '../src/run.ts';
import { textProblem } from '../src/text.ts';

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
