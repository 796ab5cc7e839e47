import { describe, expect, it } from 'vitest';
import { HandshakeTimes } from '../src/load/tls-handshakes.ts';

describe('HandshakeTimes (the Node engine) summarizes as the native engine does', () => {
  it('none: a count of 0 and null figures (an https:// step whose connections all failed)', () => {
    expect(new HandshakeTimes().summary()).toEqual({ count: 0, p50_ms: null, p99_ms: null, max_ms: null });
  });

  it('the values of engine/src/tls.rs handshake_summary: nearest rank on the sorted µs', () => {
    const h = new HandshakeTimes();
    for (const ms of [3, 1, 2, 10, 4]) h.add(ms);
    expect(h.summary()).toEqual({ count: 5, p50_ms: 3, p99_ms: 10, max_ms: 10 });
  });

  it('keeps whole µs, truncated as the engine truncates ns, and sorts numerically', () => {
    const h = new HandshakeTimes();
    for (const ms of [0.0019, 12.3456, 9.9999]) h.add(ms);
    expect(h.summary()).toEqual({ count: 3, p50_ms: 9.999, p99_ms: 12.345, max_ms: 12.345 });
  });
});
