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
 * Splits the engine's stdout into frames (`u32` little-endian length, then a type byte; see
 * apps/agent/engine/README.md). Chunks from the pipe are kept as they come and copied once, to an
 * aligned place in a slab, when the frame is complete.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private slab: Buffer = Buffer.alloc(0);
  private slabAt = 0;

  constructor() {
    // The engine writes its columns in its own byte order; typed arrays read the host's.
    if (endianness() !== 'LE') throw new Error('the native engine protocol needs a little-endian host');
  }

  /** Every frame completed by this chunk, in order. Throws on a stream that is not frames. */
  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const length = this.peekLength();
      if (length < 1 || length > MAX_FRAME) throw new Error(`the native engine sent a frame of ${length} bytes: not its protocol`);
      if (this.buffered < 4 + length) break;
      this.consume(4);
      frames.push(decode(this.consume(length)));
    }
    return frames;
  }

  /** Bytes of an unfinished frame (a stream that ends with some is truncated). */
  get pending(): number {
    return this.buffered;
  }

  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readUInt32LE(0);
    return Buffer.concat(this.chunks, 4).readUInt32LE(0);
  }

  /**
   * The next n bytes, copied to an 8-byte aligned place of their own. Frames are carved one after
   * another out of a slab of SLAB_BYTES (uninitialised: every byte is written here), so a 256-event
   * frame costs a copy, not an allocation of its own; a slab is never written twice, so the views
   * of earlier frames (which the recorder keeps until it cuts a batch) stay as they were.
   */
  private consume(n: number): Uint8Array {
    if (this.slabAt + n > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, n));
      this.slabAt = 0;
    }
    const out = this.slab.subarray(this.slabAt, this.slabAt + n);
    this.slabAt += (n + 7) & ~7;
    let filled = 0;
    while (filled < n) {
      const head = this.chunks[0]!;
      const take = Math.min(head.length, n - filled);
      out.set(head.subarray(0, take), filled);
      filled += take;
      if (take === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(take);
    }
    this.buffered -= n;
    return out;
  }
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
