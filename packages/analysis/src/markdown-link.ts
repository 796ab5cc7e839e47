/**
 * A link or image target for Markdown: http(s) only (a `javascript:` or `data:` base would run in
 * a reader's browser), with the characters that would end the Markdown link — spaces,
 * parentheses, angle brackets, quotes — percent-encoded. Null when the URL is not http(s).
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
