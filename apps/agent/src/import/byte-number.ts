const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/**
 * The decimal number in bytes [start, end), exactly as Number() would read it, NaN if it is none.
 * Plain decimals of up to 15 digits (what load tools write) are read here: an integer below 2^53
 * divided by an exact power of ten is the correctly rounded value, the same double Number() gives.
 * Anything else (exponents, long mantissas) goes to Number() itself.
 */
export function parseNumberBytes(b: Uint8Array, start: number, end: number): number {
  let i = start;
  const negative = b[i] === 45; /* - */
  if (negative) i += 1;
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = 0;
  let seenDot = false;
  const first = i;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits += 1;
      if (seenDot) fractionDigits += 1;
    } else if (c === 46 && !seenDot) {
      seenDot = true;
    } else {
      return slow(b, start, end);
    }
  }
  if (digits === 0 || digits > 15 || (seenDot && fractionDigits === 0) || i === first) return slow(b, start, end);
  const v = mantissa / POW10[fractionDigits]!;
  return negative ? -v : v;
}

function slow(b: Uint8Array, start: number, end: number): number {
  if (end <= start) return Number.NaN;
  const n = Number(Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1'));
  return n;
}
