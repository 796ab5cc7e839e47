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

  it('refuses a stream that is not frames', () => {
    expect(() => new FrameReader().push(Buffer.from('hello world, not frames'))).toThrow(/not its protocol|unknown frame/);
    const wrongCount = eventFrame([[1, 1, 1, 1, 1, 200, 0, 0]]);
    wrongCount.writeUInt32LE(5, 8);
    expect(() => new FrameReader().push(wrongCount)).toThrow(/event frame of 54 bytes for 5 events/);
  });
});
