import { describe, expect, it } from 'vitest';
import { decodeArrowColumns, encodeArrowColumns, type EventColumns } from '@kneeboard/event-wire';
import { EventBuffer } from '../src/event-buffer.ts';

const T0 = 1_800_000_000_000;
const bounds = { tsMin: T0 - 60_000, tsMax: T0 + 60_000 };

/** A block of n events whose latency is `from`, `from + 1`, …: the order is visible in the values. */
function block(from: number, n: number): EventColumns {
  return {
    length: n,
    level: new Float64Array(n).fill(7),
    ts_ms: Float64Array.from({ length: n }, (_, i) => T0 + from + i),
    latency_ms: Float64Array.from({ length: n }, (_, i) => from + i),
    compute_ms: Float64Array.from({ length: n }, (_, i) => (i % 2 ? Number.NaN : 1)),
    queue_ms: new Float64Array(n).fill(Number.NaN),
    status: new Uint16Array(n).fill(200),
  };
}

describe('EventBuffer', () => {
  it('carries request names through single events, named and unnamed blocks, and cuts that split or join them', () => {
    const b = new EventBuffer();
    b.append(7, T0, 0, null, null, 200, 'search');
    b.append(7, T0 + 1, 1, null, null, 200);
    b.appendColumns({ ...block(2, 4), name: { values: ['cart', 'checkout'], index: Uint16Array.from([1, 0, 0, 1]) } });
    b.appendColumns(block(6, 2)); // a block without names
    b.append(7, T0 + 8, 8, null, null, 200, 'search');
    const names: string[] = [];
    for (const max of [3, 4, 100]) {
      const cut = b.take(max);
      const back = decodeArrowColumns(encodeArrowColumns(cut), bounds);
      const decoded = back.name ? Array.from(back.name.index, (k) => back.name!.values[k]!) : Array.from({ length: back.length }, () => '');
      names.push(...decoded);
    }
    expect(names).toEqual(['search', '', 'checkout', 'cart', 'cart', 'checkout', '', '', 'search']);
    // Unnamed events alone make no name column: such a batch is stored as before names existed.
    const plain = new EventBuffer();
    plain.append(7, T0, 0, null, null, 200);
    plain.appendColumns(block(1, 2));
    expect(plain.take(100).name).toBeUndefined();
  });

  it('keeps single events and whole blocks in the order recorded, across cuts that split blocks', () => {
    const b = new EventBuffer();
    b.append(7, T0, 0, 1, null, 200);
    b.append(7, T0 + 1, 1, null, null, 200);
    b.appendColumns(block(2, 5));
    b.append(7, T0 + 7, 7, 1, null, 200);
    b.appendColumns(block(8, 4));
    expect(b.length).toBe(12);
    const latencies: number[] = [];
    for (const max of [3, 5, 100]) {
      const cut = b.take(max);
      expect(cut.length).toBe(Math.min(max, cut.length));
      latencies.push(...cut.latency_ms);
      // A cut encodes and decodes whole, whether it is one view into a block or a concatenation.
      const back = decodeArrowColumns(encodeArrowColumns(cut), bounds);
      expect(Array.from(back.latency_ms)).toEqual(Array.from(cut.latency_ms));
      expect(Array.from(back.compute_ms).map(Number.isNaN)).toEqual(Array.from(cut.compute_ms).map(Number.isNaN));
    }
    expect(latencies).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(b.length).toBe(0);
  });

  it('takes a block that fits whole without copying it', () => {
    const b = new EventBuffer();
    const one = block(0, 10);
    b.appendColumns(one);
    b.appendColumns(block(10, 0));
    expect(b.take(10).latency_ms).toBe(one.latency_ms);
    expect(b.length).toBe(0);
  });

  it('clamps a Server-Timing time above its latency to the latency (the API refuses it beyond 1 ms or 1%), nulls kept', () => {
    const b = new EventBuffer();
    b.append(7, T0, 5, 9.5, 2, 200);
    b.append(7, T0 + 1, 5, null, 30, 200);
    const native = block(0, 2);
    native.latency_ms.set([4, 4]);
    native.compute_ms.set([6, Number.NaN]);
    native.queue_ms.set([Number.NaN, 4.5]);
    b.appendColumns(native);
    const cut = b.take(4);
    expect(Array.from(cut.compute_ms).map((v) => (Number.isNaN(v) ? null : v))).toEqual([5, null, 4, null]);
    expect(Array.from(cut.queue_ms).map((v) => (Number.isNaN(v) ? null : v))).toEqual([2, 5, null, 4]);
    expect(() => decodeArrowColumns(encodeArrowColumns(cut), bounds)).not.toThrow();
  });
});
