import { describe, expect, it } from 'vitest';
import { FrameReader, type EventColumnsFrame } from '../src/native/frames.ts';

/** Frames as the engine writes them (apps/agent/engine/src/wire.rs). */
function jsonFrame(value: unknown): Buffer {
  const body = Buffer.from(`J${JSON.stringify(value)}`);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  return Buffer.concat([len, body]);
}

/** intended, sent, ended, compute, queue, status, kind, unparseable, and (protocol 4) the request's index in the mix. */
function eventFrame(rows: Array<[number, number, number, number, number, number, number, number, number?]>): Buffer {
  const n = rows.length;
  const body = Buffer.alloc(8 + n * 46);
  body.write('E', 0);
  body.writeUInt32LE(n, 4);
  rows.forEach((r, i) => {
    for (let col = 0; col < 5; col++) body.writeDoubleLE(r[col]!, 8 + col * 8 * n + i * 8);
    body.writeUInt16LE(r[5], 8 + 40 * n + i * 2);
    body.writeUInt16LE(r[8] ?? 0, 8 + 42 * n + i * 2);
    body[8 + 44 * n + i] = r[6];
    body[8 + 45 * n + i] = r[7];
  });
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  return Buffer.concat([len, body]);
}

describe('FrameReader (the native engine protocol)', () => {
  const stream = Buffer.concat([
    jsonFrame({ type: 'hello', protocol: 1 }),
    eventFrame([
      [1, 1.5, 3, Number.NaN, 0.25, 200, 0, 1, 7],
      [2, Number.NaN, 4, 1, Number.NaN, 0, 3, 0, 0],
    ]),
    jsonFrame({ type: 'end' }),
  ]);

  it('reads JSON and event frames, with columns as typed-array views', () => {
    const frames = new FrameReader().push(stream);
    expect(frames.map((f) => f.kind)).toEqual(['json', 'events', 'json']);
    expect(frames[0]).toEqual({ kind: 'json', value: { type: 'hello', protocol: 1 } });
    const e = frames[1] as EventColumnsFrame;
    expect(e.length).toBe(2);
    expect([...e.intended]).toEqual([1, 2]);
    expect(e.sent[0]).toBe(1.5);
    expect(Number.isNaN(e.sent[1]!)).toBe(true);
    expect([...e.ended]).toEqual([3, 4]);
    expect(Number.isNaN(e.compute[0]!)).toBe(true);
    expect(e.queue[0]).toBe(0.25);
    expect([...e.status]).toEqual([200, 0]);
    expect([...e.errorKind]).toEqual([0, 3]);
    expect([...e.unparseable]).toEqual([1, 0]);
    expect([...e.request]).toEqual([7, 0]);
  });

  it('gives the same frames however the pipe cuts the stream', () => {
    for (const cut of [1, 3, 4, 5, 13, 40, stream.length - 1]) {
      const r = new FrameReader();
      const frames = [...r.push(stream.subarray(0, cut)), ...r.push(stream.subarray(cut))];
      expect(frames.map((f) => f.kind)).toEqual(['json', 'events', 'json']);
      expect([...(frames[1] as EventColumnsFrame).ended]).toEqual([3, 4]);
      expect(r.pending).toBe(0);
    }
    // Byte by byte, and a truncated stream leaves bytes pending.
    const r = new FrameReader();
    let count = 0;
    for (let i = 0; i < stream.length - 2; i++) count += r.push(stream.subarray(i, i + 1)).length;
    expect(count).toBe(2);
    expect(r.pending).toBeGreaterThan(0);
  });

  it('keeps nothing of a chunk: one reused read buffer, cut at every byte boundary, leaves every frame intact', () => {
    // What native-step.ts does: every read lands in the same memory, overwritten by the next one.
    const rows = (n: number, base: number) =>
      Array.from({ length: n }, (_, i) => [base + i, base + i + 0.5, base + i + 1, i, Number.NaN, 200 + (i % 3), i % 2, i % 4, i % 5] as [number, number, number, number, number, number, number, number, number]);
    const many = Buffer.concat([jsonFrame({ type: 'hello' }), eventFrame(rows(3, 0)), eventFrame(rows(1, 100)), jsonFrame({ type: 'progress', in_flight: 9 }), eventFrame(rows(7, 200)), jsonFrame({ type: 'end' })]);
    const check = (frames: ReturnType<FrameReader['push']>) => {
      expect(frames.map((f) => f.kind)).toEqual(['json', 'events', 'events', 'json', 'events', 'json']);
      expect(frames[3]).toEqual({ kind: 'json', value: { type: 'progress', in_flight: 9 } });
      for (const [k, n, base] of [[1, 3, 0], [2, 1, 100], [4, 7, 200]] as const) {
        const e = frames[k] as EventColumnsFrame;
        expect(e.length).toBe(n);
        expect([...e.intended]).toEqual(rows(n, base).map((r) => r[0]));
        expect([...e.ended]).toEqual(rows(n, base).map((r) => r[2]));
        expect([...e.compute]).toEqual(rows(n, base).map((r) => r[3]));
        expect([...e.status]).toEqual(rows(n, base).map((r) => r[5]));
        expect([...e.errorKind]).toEqual(rows(n, base).map((r) => r[6]));
        expect([...e.unparseable]).toEqual(rows(n, base).map((r) => r[7]));
        expect([...e.request]).toEqual(rows(n, base).map((r) => r[8]));
      }
    };
    const reused = Buffer.alloc(many.length);
    const feed = (r: FrameReader, from: number, to: number) => {
      many.copy(reused, 0, from, to);
      const out = r.push(reused.subarray(0, to - from));
      reused.fill(0xa5); // the next read overwrites it: nothing may still point here
      return out;
    };
    // Two reads, cut at every byte boundary.
    for (let cut = 0; cut <= many.length; cut++) {
      const r = new FrameReader();
      const frames = [...feed(r, 0, cut), ...feed(r, cut, many.length)];
      check(frames);
      expect(r.pending).toBe(0);
    }
    // Reads of every size from 1 to 64 bytes (the unfinished frame grows across many reads).
    for (let size = 1; size <= 64; size++) {
      const r = new FrameReader();
      const frames = [];
      for (let at = 0; at < many.length; at += size) frames.push(...feed(r, at, Math.min(at + size, many.length)));
      check(frames);
      expect(r.pending).toBe(0);
    }
  });

  it('refuses a stream that is not frames', () => {
    expect(() => new FrameReader().push(Buffer.from('hello world, not frames'))).toThrow(/not its protocol|unknown frame/);
    const wrongCount = eventFrame([[1, 1, 1, 1, 1, 200, 0, 0]]);
    wrongCount.writeUInt32LE(5, 8);
    expect(() => new FrameReader().push(wrongCount)).toThrow(/event frame of 54 bytes for 5 events/);
  });
});
