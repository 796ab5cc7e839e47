/**
 * ISO 8601 / RFC 3339 timestamps as the load tools write them (Go's RFC3339Nano in k6 and vegeta:
 * `2026-11-23T18:00:00.123456789Z` or `…+02:00`) → epoch ms, keeping the sub-millisecond digits.
 * `Date.parse` drops them and is slow; millions of these arrive per second, and the seconds part
 * repeats, so it is computed once per distinct second.
 */
let cachedPrefix = '';
let cachedMs = 0;

const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;

/** NaN when `s` is not a full date-time with a zone. */
export function parseIsoMs(s: string): number {
  if (s.length < 20 || s.charCodeAt(10) !== 84 /* T */) return Number.NaN;
  const prefix = s.slice(0, 19);
  if (prefix !== cachedPrefix) {
    const ms = Date.UTC(
      digit(s, 0) * 1000 + digit(s, 1) * 100 + digit(s, 2) * 10 + digit(s, 3),
      digit(s, 5) * 10 + digit(s, 6) - 1,
      digit(s, 8) * 10 + digit(s, 9),
      digit(s, 11) * 10 + digit(s, 12),
      digit(s, 14) * 10 + digit(s, 15),
      digit(s, 17) * 10 + digit(s, 18),
    );
    // Rejects '2026-13-01…', letters in digit places and the like: the date must print back the same.
    if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 19) !== prefix) return Number.NaN;
    cachedPrefix = prefix;
    cachedMs = ms;
  }
  let i = 19;
  let fraction = 0;
  if (s.charCodeAt(i) === 46 /* . */) {
    i += 1;
    let scale = 100; // the first fractional digit is hundreds of ms
    const from = i;
    while (i < s.length) {
      const d = digit(s, i);
      if (d < 0 || d > 9) break;
      fraction += d * scale;
      scale /= 10;
      i += 1;
    }
    if (i === from) return Number.NaN;
  }
  const zone = s.charCodeAt(i);
  if (zone === 90 /* Z */ && i === s.length - 1) return cachedMs + fraction;
  if ((zone === 43 /* + */ || zone === 45) /* - */ && i === s.length - 6 && s.charCodeAt(i + 3) === 58 /* : */) {
    const offsetMin = (digit(s, i + 1) * 10 + digit(s, i + 2)) * 60 + digit(s, i + 4) * 10 + digit(s, i + 5);
    if (!(offsetMin >= 0 && offsetMin < 24 * 60)) return Number.NaN;
    return cachedMs + fraction - (zone === 43 ? 1 : -1) * offsetMin * 60_000;
  }
  return Number.NaN;
}
