import { describe, expect, it } from 'vitest';
import { CreateRunBody, EventBatch, formatPath, MAX_BATCH_EVENTS, StepWindow } from '../src/index.ts';

const T = 1_700_000_000_000;
const batch = { batch_id: 'b', agent_id: 'a', level: [1, 2], ts_ms: [T + 1.5, T + 2.5], latency_ms: [3, 4], compute_ms: [1, null], queue_ms: [null, 0], status: [200, 0] };

describe('EventBatch', () => {
  it('accepts equal-length columns with nulls for missing Server-Timing', () => {
    expect(EventBatch.parse(batch).level).toEqual([1, 2]);
  });

  it('names each column whose length differs from level', () => {
    const r = EventBatch.safeParse({ ...batch, ts_ms: [T], status: [200, 200, 200] });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => formatPath(i.path))).toEqual(['ts_ms', 'status']);
  });

  it('names the exact entry of a bad value', () => {
    const r = EventBatch.safeParse({ ...batch, latency_ms: [3, Number.NaN] });
    expect(r.error?.issues.map((i) => formatPath(i.path))).toEqual(['latency_ms[1]']);
  });

  it('bounds every number to what is physically meaningful', () => {
    const fields = (b: object) => EventBatch.safeParse({ ...batch, ...b }).error?.issues.map((i) => formatPath(i.path));
    expect(fields({ level: [1, 1e308] })).toEqual(['level[1]']);
    expect(fields({ latency_ms: [3, 86_400_001] })).toEqual(['latency_ms[1]']);
    expect(fields({ ts_ms: [T, 1e22] })).toEqual(['ts_ms[1]']);
    expect(fields({ ts_ms: [T, 1.5] })).toEqual(['ts_ms[1]']);
  });

  it('takes an optional name per request, null for none, with the label rules and at most 200 characters', () => {
    expect(EventBatch.parse({ ...batch, name: ['search', null] }).name).toEqual(['search', null]);
    const fields = (b: object) => EventBatch.safeParse({ ...batch, ...b }).error?.issues.map((i) => formatPath(i.path));
    expect(fields({ name: ['ok', 'x'.repeat(201)] })).toEqual(['name[1]']);
    expect(fields({ name: ['a\u0000b', 'ok'] })).toEqual(['name[0]']);
    expect(fields({ name: ['ok'] })).toEqual(['name']);
  });

  it('caps a batch at MAX_BATCH_EVENTS', () => {
    const n = MAX_BATCH_EVENTS + 1;
    const r = EventBatch.safeParse({ ...batch, level: new Array(n).fill(1), ts_ms: new Array(n).fill(T), latency_ms: new Array(n).fill(1), compute_ms: new Array(n).fill(null), queue_ms: new Array(n).fill(null), status: new Array(n).fill(200) });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain(String(MAX_BATCH_EVENTS));
  });
});

describe('CreateRunBody and StepWindow', () => {
  it('defaults the load model and the swept parameter', () => {
    expect(CreateRunBody.parse({ service: 's', release: 'v1' })).toMatchObject({ load_model: 'closed', parameter: 'concurrency', tags: {} });
  });

  it('a step posted while running has no end yet', () => {
    expect(StepWindow.parse({ level: 8, started_at: 1, measure_from: 2 }).ended_at).toBeNull();
    expect(StepWindow.safeParse({ level: 8, started_at: 3, measure_from: 2 }).error?.issues[0]?.path).toEqual(['measure_from']);
  });
});

describe('formatPath', () => {
  it('writes columnar paths the way the API reports them', () => {
    expect(formatPath(['latency_ms', 3])).toBe('latency_ms[3]');
    expect(formatPath(['tags', 'env'])).toBe('tags.env');
  });
});
