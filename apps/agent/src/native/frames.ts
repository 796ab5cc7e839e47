import { endianness } from 'node:os';

/** The engine's columns for a batch of requests: views over one copy of the frame, no copy per value. */
export interface EventColumnsFrame {
  kind: 'events';
  length: number;
  /** ms since the step's t0. `sent` is NaN for a request that never left. */
  intended: Float64Array;
  sent: Float64Array;
  ended: Float64Array;
  /** ms, NaN when the server did not say. */
  compute: Float64Array;
  queue: Float64Array;
  status: Uint16Array;
  /** The request's index in the mix (`--requests-file`; 0 without one). */
  request: Uint16Array;
  /** 0: an HTTP response; k ≥ 1: the hello's error_kinds[k-1]; 255: cancelled (on the wire, not an event). */
  errorKind: Uint8Array;
  unparseable: Uint8Array;
}

export interface JsonFrame {
  kind: 'json';
  value: unknown;
}

export type Frame = EventColumnsFrame | JsonFrame;

export const KIND_CANCELLED = 255;
const TYPE_JSON = 0x4a; // 'J'
const TYPE_EVENTS = 0x45; // 'E'
/** A frame larger than this is a broken stream, not a batch (4,096 events are ~180 KiB). */
const MAX_FRAME = 256 * 1024 * 1024;
/** Frames are copied into slabs of this size: ~88 frames of 256 events an allocation. */
const SLAB_BYTES = 1024 * 1024;

/**
 * Splits the engine's output into frames (`u32` little-endian length, then a type byte; see
 * apps/agent/engine/README.md). Nothing of a chunk is kept after push() returns: each complete
 * frame is copied once, to an aligned place in a slab, and the unfinished frame at the chunk's end
 * (at most one) to a buffer of its own. So the caller may read the next chunk into the same memory
 * (native-step.ts reads the engine into one reused buffer: no allocation per read).
 */
export class FrameReader {
  /** The unfinished frame's bytes so far (length prefix included), in `partial[0, partialLength)`. */
  private partial: Buffer = Buffer.alloc(0);
  private partialLength = 0;
  private slab: Buffer = Buffer.alloc(0);
  private slabAt = 0;

  constructor() {
    // The engine writes its columns in its own byte order; typed arrays read the host's.
    if (endianness() !== 'LE') throw new Error('the native engine protocol needs a little-endian host');
  }

  /** Every frame completed by this chunk, in order. Throws on a stream that is not frames. */
  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    let at = 0;
    if (this.partialLength > 0) {
      // First the frame the last chunk left unfinished: its length prefix, then its body.
      if (this.partialLength < 4) at = this.append(chunk, 0, 4 - this.partialLength);
      if (this.partialLength < 4) return frames;
      const total = 4 + checkedLength(this.partial.readUInt32LE(0));
      at = this.append(chunk, at, total - this.partialLength);
      if (this.partialLength < total) return frames;
      frames.push(decode(this.copyToSlab(this.partial, 4, total)));
      this.partialLength = 0;
    }
    for (;;) {
      const left = chunk.length - at;
      if (left < 4) break;
      const length = checkedLength(chunk[at]! | (chunk[at + 1]! << 8) | (chunk[at + 2]! << 16) | (chunk[at + 3]! * 2 ** 24));
      if (left < 4 + length) break;
      frames.push(decode(this.copyToSlab(chunk, at + 4, at + 4 + length)));
      at += 4 + length;
    }
    if (at < chunk.length) this.append(chunk, at, chunk.length - at);
    return frames;
  }

  /** Bytes of an unfinished frame (a stream that ends with some is truncated). */
  get pending(): number {
    return this.partialLength;
  }

  /** Copies up to n bytes of chunk from `from` to the unfinished frame; returns where it stopped in chunk. */
  private append(chunk: Uint8Array, from: number, n: number): number {
    const take = Math.min(n, chunk.length - from);
    const need = this.partialLength + take;
    if (need > this.partial.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.partial.length, 64 * 1024));
      this.partial.copy(grown, 0, 0, this.partialLength);
      this.partial = grown;
    }
    this.partial.set(chunk.subarray(from, from + take), this.partialLength);
    this.partialLength += take;
    return from + take;
  }

  /**
   * Bytes [from, to) of src, copied to an 8-byte aligned place of their own. Frames are carved one
   * after another out of a slab of SLAB_BYTES (uninitialised: every byte is written here), so a
   * 256-event frame costs a copy, not an allocation of its own; a slab is never written twice, so
   * the views of earlier frames (which the recorder keeps until it cuts a batch) stay as they were.
   */
  private copyToSlab(src: Uint8Array, from: number, to: number): Uint8Array {
    const n = to - from;
    if (this.slabAt + n > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, n));
      this.slabAt = 0;
    }
    const out = this.slab.subarray(this.slabAt, this.slabAt + n);
    this.slabAt += (n + 7) & ~7;
    out.set(src.subarray(from, to));
    return out;
  }
}

function checkedLength(length: number): number {
  if (length < 1 || length > MAX_FRAME) throw new Error(`the native engine sent a frame of ${length} bytes: not its protocol`);
  return length;
}

function decode(body: Uint8Array): Frame {
  const type = body[0];
  if (type === TYPE_JSON) return { kind: 'json', value: JSON.parse(Buffer.from(body.buffer, body.byteOffset + 1, body.length - 1).toString('utf8')) };
  if (type !== TYPE_EVENTS || body.length < 8) throw new Error(`the native engine sent an unknown frame type ${type}`);
  const ab = body.buffer as ArrayBuffer;
  // The frame's place in its slab, 8-byte aligned: the f64 columns start 8 bytes into it.
  const at = body.byteOffset;
  const n = new DataView(ab, at, body.length).getUint32(4, true);
  if (body.length !== 8 + n * 46) throw new Error(`the native engine sent an event frame of ${body.length} bytes for ${n} events`);
  const f64 = (col: number) => new Float64Array(ab, at + 8 + col * 8 * n, n);
  return {
    kind: 'events',
    length: n,
    intended: f64(0),
    sent: f64(1),
    ended: f64(2),
    compute: f64(3),
    queue: f64(4),
    status: new Uint16Array(ab, at + 8 + 40 * n, n),
    request: new Uint16Array(ab, at + 8 + 42 * n, n),
    errorKind: new Uint8Array(ab, at + 8 + 44 * n, n),
    unparseable: new Uint8Array(ab, at + 8 + 45 * n, n),
  };
}
