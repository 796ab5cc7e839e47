/**
 * User strings (service, release, run name, parameter) written into Markdown for a pull request:
 * they must read as the text they are and never become HTML, links, emphasis or table columns.
 */

/** Markdown's inline syntax and the HTML it passes through; `.`, `-` and `:` stay as they are (versions, dates). */
const INLINE = /[\\`*_[\]|~#!{}]/g;

/**
 * Text for a heading, a paragraph or a table cell: HTML made inert with entities, Markdown syntax
 * escaped with backslashes, `|` escaped so a cell stays one cell, line breaks and other control
 * characters folded to spaces, and a leading list/quote/heading marker escaped.
 */
export function escapeMarkdownText(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(INLINE, (c) => `\\${c}`)
      .replace(/^(\s*)([-+=]|\d+(?=[.)]))/, (_m, space: string, marker: string) => (/\d/.test(marker) ? `${space}${marker}\\` : `${space}\\${marker}`))
  );
}

/**
 * A link or image target: http(s) only (a `javascript:` or `data:` base would run in a reader's
 * browser), with the characters that would end the Markdown link — spaces, parentheses, angle
 * brackets, quotes — percent-encoded. Null when the URL is not http(s).
 */
export function markdownLinkTarget(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  // eslint-disable-next-line no-control-regex -- control characters are encoded with the rest
  return url.replace(/[\u0000-\u0020\u007f<>()"'`\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
