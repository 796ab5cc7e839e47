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

const hex = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The same rules as JSON Schema patterns for the OpenAPI document (`.meta(LINE)` next to
 * `.superRefine(plainLine)`), so clients and fuzzers know them. A pattern cannot see a lone
 * surrogate; JSON text generators do not make them, and the refinement still refuses them.
 */
const REFUSED_LINE = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufffd';
const REFUSED_TEXT = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufffd';
/**
 * What shows nothing: white space, zero-width and other format characters (soft hyphen, joiners,
 * word joiner, BOM, variation selectors…) and characters drawn blank (Hangul fillers, the blank
 * braille pattern). Listed, not `\s` or `\p{…}`, so the refinement and the OpenAPI pattern —
 * read by other regex engines — say exactly the same. Controls and bidi marks are refused anyway.
 */
const INVISIBLE =
  '\\u0020\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f\\u202f\\u205f-\\u2064\\u206a-\\u206f\\u2800\\u3000\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0';
/** A name that is there must have one character outside INVISIBLE: one that a reader can see. */
// eslint-disable-next-line no-misleading-character-class -- the class lists invisible characters one by one, variation selectors included
const VISIBLE = new RegExp(`[^${INVISIBLE}]`);
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
