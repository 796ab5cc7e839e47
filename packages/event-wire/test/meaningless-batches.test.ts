import { describe, expect, it } from 'vitest';
import { allocateColumns, BatchRejected, decodeArrowBatch, decodeJsonBatch, encodeArrowColumns, type EventBounds } from '../src/index.ts';
import { patchBufferLength } from '../src/testing.ts';

const T0 = 1_800_000_000_000;
const bounds: EventBounds = { tsMin: T0 - 60_000, tsMax: T0 + 60_000 };

function columns(n = 4) {
  const c = allocateColumns(n);
  for (let i = 0; i < n; i++) {
    c.level[i] = 8;
    c.ts_ms[i] = T0 + i;
    c.latency_ms[i] = 10 + i;
    c.compute_ms[i] = i === 1 ? Number.NaN : 9;
    c.queue_ms[i] = 0.5;
    c.status[i] = 200;
  }
  return c;
}

function rejection(f: () => unknown): BatchRejected {
  try {
    f();
  } catch (err) {
    if (err instanceof BatchRejected) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('an Arrow stream whose own lengths do not add up is refused before it is read', () => {
  const good = encodeArrowColumns(columns());

  it('reads the unpatched stream (so the patches below are what is refused)', () => {
    expect(decodeArrowBatch(good, bounds).canonical).toBe(true);
  });

  it.each([
    ['a values buffer length of 2^40', 1, 2n ** 40n, 'body', /outside its record batch's body/],
    ['a values buffer length of 8 (one float64 for four rows)', 1, 8n, 'level', /values buffer has 8 bytes; 4 entries need 32/],
    ['the latency values cut to 8 bytes', 5, 8n, 'latency_ms', /values buffer has 8 bytes/],
    ['a validity bitmap longer than the body', 6, 2n ** 40n, 'body', /outside/],
    ['a length of -1', 3, -1n, 'body', /length -1/],
    ['a length past 2^53', 3, 2n ** 62n, 'body', /not a readable Arrow IPC stream/],
  ])('%s', (_what, which, length, field, message) => {
    const err = rejection(() => decodeArrowBatch(patchBufferLength(good, which, length), bounds));
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });

  it('a compute_ms with nulls but a validity bitmap cut to nothing', () => {
    // compute_ms is the 4th column: buffers 6 (validity) and 7 (values); it has one null.
    const err = rejection(() => decodeArrowBatch(patchBufferLength(good, 6, 0n), bounds));
    expect(err.field).toBe('compute_ms');
    expect(err.message).toMatch(/validity bitmap has 0 bytes/);
  });
});

describe('values that mean nothing', () => {
  const json = (over: Record<string, unknown>) => ({ batch_id: 'b', agent_id: 'a', level: [8, 8], ts_ms: [T0, T0 + 1], latency_ms: [10, 200], compute_ms: [9, null], queue_ms: [null, 1], status: [200, 200], ...over });

  it('refuses a compute_ms or queue_ms larger than its latency_ms beyond 1 ms or 1%, in JSON and Arrow alike', () => {
    expect(rejection(() => decodeJsonBatch(json({ compute_ms: [11.5, null] }), bounds)).field).toBe('compute_ms[0]');
    expect(rejection(() => decodeJsonBatch(json({ queue_ms: [null, 203] }), bounds)).field).toBe('queue_ms[1]');
    const c = columns();
    c.compute_ms[2] = 13.5;
    const err = rejection(() => decodeArrowBatch(encodeArrowColumns(c), bounds));
    expect(err.field).toBe('compute_ms[2]');
    expect(err.message).toMatch(/larger than the request's latency_ms \(12 ms\)/);
  });

  it('accepts a part within the tolerance (clock granularity): 1 ms, or 1% of a long request', () => {
    expect(() => decodeJsonBatch(json({ compute_ms: [11, null], queue_ms: [null, 202] }), bounds)).not.toThrow();
  });

  it('refuses an event at a level the run has no step for, when the run has steps', () => {
    const withSteps = { ...bounds, levels: new Set([1, 2, 4, 8]) };
    const err = rejection(() => decodeJsonBatch(json({ level: [8, 2.5] }), withSteps));
    expect(err.field).toBe('level[1]');
    expect(err.message).toMatch(/no step of the run has level 2.5 \(its steps: 1, 2, 4, 8\)/);
    const c = columns();
    c.level[3] = 3;
    expect(rejection(() => decodeArrowBatch(encodeArrowColumns(c), withSteps)).field).toBe('level[3]');
    expect(() => decodeJsonBatch(json({ level: [8, 4] }), withSteps)).not.toThrow();
  });
});
