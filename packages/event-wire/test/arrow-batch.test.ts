import { describe, expect, it } from 'vitest';
import { Float32, Float64, Int32, Int64, Table, Uint8, Utf8, tableToIPC, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import { BatchRejected, decodeArrowColumns, encodeArrowColumns, type EventBounds } from '../src/index.ts';

const T0 = 1_800_000_000_000;
const bounds: EventBounds = { tsMin: T0 - 60_000, tsMax: T0 + 60_000 };

function stream(columns: Record<string, Vector>): Uint8Array {
  return tableToIPC(new Table(columns), 'stream');
}

const vec = (values: unknown[], type: DataType) => vectorFromArray(values, type);

function good(over: Record<string, Vector> = {}, drop: string[] = []): Uint8Array {
  const cols: Record<string, Vector> = {
    level: vec([1, 2], new Float64()),
    ts_ms: vec([T0, T0 + 1.5], new Float64()),
    latency_ms: vec([12.5, 13], new Float64()),
    compute_ms: vec([10, null], new Float64()),
    queue_ms: vec([null, 0.25], new Float64()),
    status: vec([200, 0], new Int32()),
    ...over,
  };
  for (const d of drop) delete cols[d];
  return stream(cols);
}

function rejected(bytes: Uint8Array): BatchRejected {
  try {
    decodeArrowColumns(bytes, bounds);
  } catch (err) {
    if (err instanceof BatchRejected) return err;
    throw err;
  }
  throw new Error('expected the batch to be rejected');
}

describe('decodeArrowColumns', () => {
  it('reads float64 columns, nulls as NaN, and an int32 status', () => {
    const c = decodeArrowColumns(good(), bounds);
    expect(c.length).toBe(2);
    expect(Array.from(c.ts_ms)).toEqual([T0, T0 + 1.5]);
    expect(c.compute_ms[0]).toBe(10);
    expect(Number.isNaN(c.compute_ms[1])).toBe(true);
    expect(Array.from(c.status)).toEqual([200, 0]);
  });

  it('converts other widths: float32 latency, int64 timestamps, uint8 level', () => {
    const c = decodeArrowColumns(
      good({ latency_ms: vec([10.5, 2.25], new Float32()), ts_ms: vec([BigInt(T0), BigInt(T0 + 7)], new Int64()), level: vec([4, 8], new Uint8()) }),
      bounds,
    );
    expect(Array.from(c.latency_ms)).toEqual([10.5, 2.25]);
    expect(Array.from(c.ts_ms)).toEqual([T0, T0 + 7]);
    expect(Array.from(c.level)).toEqual([4, 8]);
  });

  it('round-trips through the canonical encoding, nulls included', () => {
    const c = decodeArrowColumns(good(), bounds);
    const again = decodeArrowColumns(encodeArrowColumns(c), bounds);
    expect(Array.from(again.queue_ms).map((v) => (Number.isNaN(v) ? null : v))).toEqual([null, 0.25]);
    expect(encodeArrowColumns(again)).toEqual(encodeArrowColumns(c));
  });

  it('keeps every null where it was, wherever the first one falls (bitmap bytes before it filled whole)', () => {
    for (const firstNull of [0, 5, 8, 13, 64, 99]) {
      const n = 100;
      const compute = Float64Array.from({ length: n }, (_, i) => (i === firstNull || (i > firstNull && i % 3 === 0) ? Number.NaN : i / 4));
      const c = { length: n, level: new Float64Array(n).fill(1), ts_ms: new Float64Array(n).fill(T0), latency_ms: new Float64Array(n).fill(n), compute_ms: compute, queue_ms: new Float64Array(n).fill(0.5), status: new Uint16Array(n).fill(200) };
      const back = decodeArrowColumns(encodeArrowColumns(c), bounds);
      expect(Array.from(back.compute_ms).map((v) => (Number.isNaN(v) ? null : v))).toEqual(Array.from(compute).map((v) => (Number.isNaN(v) ? null : v)));
      expect(Array.from(back.queue_ms).every((v) => v === 0.5)).toBe(true);
    }
  });

  it.each([
    ['a wrong column type', () => good({ latency_ms: vec(['12', '13'], new Utf8()) }), 'latency_ms'],
    ['a float status', () => good({ status: vec([200, 0], new Float64()) }), 'status'],
    ['a missing column', () => good({}, ['queue_ms']), 'queue_ms'],
    ['an extra column', () => good({ region: vec(['eu', 'us'], new Utf8()) }), 'region'],
    ['an empty batch', () => stream({ level: vec([], new Float64()), ts_ms: vec([], new Float64()), latency_ms: vec([], new Float64()), compute_ms: vec([], new Float64()), queue_ms: vec([], new Float64()), status: vec([], new Int32()) }), 'level'],
    ['a truncated stream', () => good().subarray(0, good().length - 40), 'body'],
    ['bytes that are not Arrow', () => new TextEncoder().encode('{"level":[1]}'), 'body'],
    ['a null level', () => good({ level: vec([1, null], new Float64()) }), 'level[1]'],
    ['a NaN latency', () => good({ latency_ms: vec([1, Number.NaN], new Float64()) }), 'latency_ms[1]'],
    ['a latency over a day', () => good({ latency_ms: vec([1, Number.MAX_VALUE], new Float64()) }), 'latency_ms[1]'],
    ['a level over 1e9', () => good({ level: vec([1, 1e308], new Float64()) }), 'level[1]'],
    ['a timestamp far from the run', () => good({ ts_ms: vec([T0, 1e22], new Float64()) }), 'ts_ms[1]'],
    ['a status over 999', () => good({ status: vec([200, 1000], new Int32()) }), 'status[1]'],
  ])('rejects %s, naming %s', (_what, bytes, field) => {
    expect(rejected(bytes()).field).toBe(field);
  });
});
