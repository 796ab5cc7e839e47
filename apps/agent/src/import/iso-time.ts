/**
 * ISO 8601 / RFC 3339 timestamps as the load tools write them (Go's RFC3339Nano in k6 and vegeta:
 * `2026-11-23T18:00:00.123456789Z` or `…+02:00`) → epoch ms, keeping the sub-millisecond digits.
 * `Date.parse` drops them and is slow; millions of these arrive per second, and the seconds part
 * repeats, so it is computed once per distinct second. Read from bytes: the k6 reader never
 * decodes the line.
 */
const cachedPrefix = new Uint8Array(19);
let cachedValid = false;
let cachedMs = 0;

/** NaN when `s` is not a full date-time with a zone. */
export function parseIsoMs(s: string): number {
  return parseIsoBytes(Buffer.from(s, 'latin1'), 0, s.length);
}

/** The timestamp in bytes [start, end) of `b`; NaN when it is not a full date-time with a zone. */
export function parseIsoBytes(b: Uint8Array, start: number, end: number): number {
  const len = end - start;
  if (len < 20 || b[start + 10] !== 84 /* T */) return Number.NaN;
  if (!samePrefix(b, start)) {
    const d = (i: number): number => b[start + i]! - 48;
    const ms = Date.UTC(d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3), d(5) * 10 + d(6) - 1, d(8) * 10 + d(9), d(11) * 10 + d(12), d(14) * 10 + d(15), d(17) * 10 + d(18));
    // Rejects '2026-13-01…', letters in digit places and the like: the date must print back the same.
    if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 19) !== Buffer.from(b.buffer, b.byteOffset + start, 19).toString('latin1')) return Number.NaN;
    cachedPrefix.set(b.subarray(start, start + 19));
    cachedValid = true;
    cachedMs = ms;
  }
  let i = 19;
  let fraction = 0;
  if (b[start + i] === 46 /* . */) {
    i += 1;
    let scale = 100; // the first fractional digit is hundreds of ms
    const from = i;
    while (i < len) {
      const digit = b[start + i]! - 48;
      if (digit < 0 || digit > 9) break;
      fraction += digit * scale;
      scale /= 10;
      i += 1;
    }
    if (i === from) return Number.NaN;
  }
  const zone = b[start + i];
  if (zone === 90 /* Z */ && i === len - 1) return cachedMs + fraction;
  if ((zone === 43 /* + */ || zone === 45) /* - */ && i === len - 6 && b[start + i + 3] === 58 /* : */) {
    const o = start + i;
    const offsetMin = ((b[o + 1]! - 48) * 10 + b[o + 2]! - 48) * 60 + (b[o + 4]! - 48) * 10 + b[o + 5]! - 48;
    if (!(offsetMin >= 0 && offsetMin < 24 * 60)) return Number.NaN;
    return cachedMs + fraction - (zone === 43 ? 1 : -1) * offsetMin * 60_000;
  }
  return Number.NaN;
}

function samePrefix(b: Uint8Array, start: number): boolean {
  if (!cachedValid) return false;
  for (let i = 18; i >= 0; i--) if (b[start + i] !== cachedPrefix[i]) return false;
  return true;
}
