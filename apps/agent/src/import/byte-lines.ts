/** Chunks this large keep the per-chunk overhead negligible and memory constant. */
export const CHUNK_BYTES = 1 << 20;

export interface ByteLineCallbacks {
  /** A complete line: bytes [start, end) of `buf`, its newline and a trailing \r removed, numbered from 1. */
  line(buf: Buffer, start: number, end: number, lineNumber: number): void;
  /** The last line had no newline: the file was cut off (a killed tool) or is still being written. */
  unterminated(buf: Buffer, start: number, end: number, lineNumber: number): void;
  /** After each chunk, with the bytes read so far: progress, and a chance to wait (backpressure). */
  chunk?(bytesRead: number): void | Promise<void>;
}

/**
 * Splits a stream of byte chunks into lines without decoding them: parsers look at bytes and
 * decode only the few fields they keep (k6 writes ~13 lines per request, and 12 are skipped on a
 * glance at their first bytes). Constant memory: one chunk, plus the unfinished line carried over.
 * The source may be a file, stdin, or a file still being written (`--follow`).
 */
export async function readByteLines(source: AsyncIterable<Buffer>, cb: ByteLineCallbacks): Promise<void> {
  let carry: Buffer | null = null;
  let lineNumber = 0;
  let bytes = 0;
  for await (const chunk of source) {
    bytes += chunk.length;
    const buf: Buffer = carry === null ? chunk : Buffer.concat([carry, chunk]);
    let from = 0;
    for (let nl = buf.indexOf(10, from); nl !== -1; nl = buf.indexOf(10, from)) {
      lineNumber += 1;
      cb.line(buf, from, nl > from && buf[nl - 1] === 13 ? nl - 1 : nl, lineNumber);
      from = nl + 1;
    }
    // A copy, not a view: a view would keep the whole chunk alive.
    carry = from < buf.length ? Buffer.from(buf.subarray(from)) : null;
    const wait = cb.chunk?.(bytes);
    if (wait) await wait;
  }
  if (carry !== null) cb.unterminated(carry, 0, carry.length, lineNumber + 1);
}

/** Does `buf` hold `prefix` at `at`? A JS loop: cheaper than a native call for the short prefixes parsers test. */
export function hasPrefix(buf: Uint8Array, at: number, end: number, prefix: Uint8Array): boolean {
  if (end - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** Index of the first `byte` in [from, end), or -1: bounded by the line, unlike Buffer#indexOf. */
export function byteIndex(buf: Uint8Array, byte: number, from: number, end: number): number {
  for (let i = from; i < end; i++) if (buf[i] === byte) return i;
  return -1;
}

/** Index of `needle` in [from, end), or -1. */
export function bytesIndex(buf: Uint8Array, needle: Uint8Array, from: number, end: number): number {
  const first = needle[0]!;
  const last = end - needle.length;
  outer: for (let i = from; i <= last; i++) {
    if (buf[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (buf[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
