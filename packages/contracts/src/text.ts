import type { z } from 'zod';

/**
 * What a user string may contain. Names (services, releases, runs, labels, tags, agents) are one
 * line of visible text; a note may also break lines and tab. Refused: lone UTF-16 surrogates
 * (not text; storage and every encoder choke on them), control characters (NUL, escape sequences
 * that rewrite a terminal, line breaks in a name) and the bidirectional overrides and isolates
 * that make text read differently from what it is ("Trojan Source"), U+FFFD (bytes that were not
 * UTF-8), and a one-line name that is not empty but shows nothing.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- as above, with tab, line feed and carriage return allowed
const CONTROL_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/;
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
/**
 * U+FFFD is what a decoder puts where the bytes were not valid UTF-8 (a JSON body's `\xFF\xFE`
 * arrives as it): the text sent is lost, so it is refused rather than stored as a name nobody wrote.
 */
const REPLACEMENT = /\uFFFD/;
/**
 * Something a reader can see: not white space, a control or format character (zero-width space,
 * joiners, BOM, soft hyphen…), a lone combining mark, nor a character drawn blank (Hangul fillers,
 * the blank braille pattern). A name made only of those looks empty, or like another name.
 */
const VISIBLE = /[^\p{White_Space}\p{Cc}\p{Cf}\p{M}\u115F\u1160\u3164\uFFA0\u2800]/u;

const hex = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The same rules as JSON Schema patterns for the OpenAPI document (`.meta(LINE)` next to
 * `.superRefine(plainLine)`), so clients and fuzzers know them. A pattern cannot see a lone
 * surrogate; JSON text generators do not make them, and the refinement still refuses them.
 */
const REFUSED_LINE = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufffd';
const REFUSED_TEXT = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufffd';
/** The common invisible characters, for patterns (VISIBLE above is the full rule). */
const INVISIBLE = '\\s\\u00ad\\u034f\\u061c\\u115f\\u1160\\u180e\\u200b-\\u200f\\u2060-\\u2064\\u2800\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0';
/** One line of visible text: empty, or with something visible in it. */
export const LINE = { pattern: `^(?:[^${REFUSED_LINE}]*[^${REFUSED_LINE}${INVISIBLE}][^${REFUSED_LINE}]*)?$` };
/** One line with something visible in it (for a field trimmed and then `.min(1)`). */
export const NONBLANK_LINE = { pattern: `^[^${REFUSED_LINE}]*[^${REFUSED_LINE}${INVISIBLE}][^${REFUSED_LINE}]*$` };
/** Text that may break lines (a note). */
export const TEXT = { pattern: `^[^${REFUSED_TEXT}]*$` };
/** The character class of what a line refuses, for patterns that combine it with more. */
export const REFUSED_IN_LINE = REFUSED_LINE;

/** Why `value` is not acceptable user text, or null when it is. */
export function textProblem(value: string, multiline = false): string | null {
  const surrogate = LONE_SURROGATE.exec(value);
  if (surrogate) return `contains a lone UTF-16 surrogate (${hex(surrogate[0])}) at ${surrogate.index}; send valid Unicode`;
  const control = (multiline ? CONTROL_MULTILINE : CONTROL_LINE).exec(value);
  if (control) return `contains the control character ${hex(control[0])} at ${control.index}`;
  const bidi = BIDI_CONTROL.exec(value);
  if (bidi) return `contains the bidirectional override ${hex(bidi[0])} at ${bidi.index}`;
  const replaced = REPLACEMENT.exec(value);
  if (replaced) return `contains U+FFFD at ${replaced.index}, the mark of bytes that were not valid UTF-8; send valid UTF-8`;
  // A note may be blank; a name that is there must show something.
  if (!multiline && value.length > 0 && !VISIBLE.test(value)) return 'has no visible character (only white space, zero-width or other invisible characters)';
  return null;
}

/** For `.superRefine`: one line of visible text. */
export function plainLine(value: string, ctx: z.RefinementCtx): void {
  const problem = textProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
}

/** For `.superRefine`: text that may break lines (a note). */
export function plainText(value: string, ctx: z.RefinementCtx): void {
  const problem = textProblem(value, true);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
}
