import { describe, expect, it } from 'vitest';
import { MAX_BATCH_EVENTS } from '@kneeboard/contracts';
import { BatchRejected, decodeJsonBatch, type EventBounds } from '../src/index.ts';

const T0 = 1_800_000_000_000;
const bounds: EventBounds = { tsMin: T0 - 60_000, tsMax: T0 + 60_000 };
const good = () => ({
  batch_id: 'b1',
  agent_id: 'a1',
  level: [1, 1],
  ts_ms: [T0, T0 + 1],
  latency_ms: [12.5, 13],
  compute_ms: [10, null] as Array<number | null>,
  queue_ms: [null, 1] as Array<number | null>,
  status: [200, 503] as unknown[],
});

function fieldOf(body: unknown): string {
  try {
    decodeJsonBatch(body, bounds);
  } catch (err) {
    if (err instanceof BatchRejected) return err.field;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('decodeJsonBatch', () => {
  it('decodes columns into typed arrays, null as NaN', () => {
    const d = decodeJsonBatch(good(), bounds);
    expect(d.batch_id).toBe('b1');
    expect(Array.from(d.columns.latency_ms)).toEqual([12.5, 13]);
    expect(Number.isNaN(d.columns.compute_ms[1])).toBe(true);
    expect(Array.from(d.columns.status)).toEqual([200, 503]);
  });

  it.each([
    ['not an object', () => [1, 2], 'body'],
    ['a missing batch_id', () => ({ ...good(), batch_id: undefined }), 'batch_id'],
    ['a numeric agent_id', () => ({ ...good(), agent_id: 7 }), 'agent_id'],
    ['a column that is not an array', () => ({ ...good(), level: 'one' }), 'level'],
    ['unequal lengths', () => ({ ...good(), queue_ms: [1] }), 'queue_ms'],
    ['a string in a number column', () => ({ ...good(), status: [200, '200'] }), 'status[1]'],
    ['a fractional status', () => ({ ...good(), status: [200, 200.5] }), 'status[1]'],
    ['a negative queue time', () => ({ ...good(), queue_ms: [null, -1] }), 'queue_ms[1]'],
    ['a null latency', () => ({ ...good(), latency_ms: [1, null] }), 'latency_ms[1]'],
    ['an empty batch', () => ({ ...good(), level: [], ts_ms: [], latency_ms: [], compute_ms: [], queue_ms: [], status: [] }), 'level'],
    ['a timestamp in the year 33658', () => ({ ...good(), ts_ms: [T0, 1e15] }), 'ts_ms[1]'],
  ])('rejects %s, naming %s', (_what, body, field) => {
    expect(fieldOf(body())).toBe(field);
  });

  it('rejects more than MAX_BATCH_EVENTS events at the level column', () => {
    const n = MAX_BATCH_EVENTS + 1;
    const col = (v: number) => new Array<number>(n).fill(v);
    expect(fieldOf({ ...good(), level: col(1), ts_ms: col(T0), latency_ms: col(1), compute_ms: col(1), queue_ms: col(1), status: col(200) })).toBe('level');
  });

  it('names at most 20 issues however many entries are bad', () => {
    const n = 1000;
    try {
      decodeJsonBatch({ ...good(), level: new Array(n).fill(-1), ts_ms: new Array(n).fill(T0), latency_ms: new Array(n).fill(1), compute_ms: new Array(n).fill(null), queue_ms: new Array(n).fill(null), status: new Array(n).fill(200) }, bounds);
      throw new Error('expected a rejection');
    } catch (err) {
      expect((err as BatchRejected).issues).toHaveLength(20);
    }
  });
});
