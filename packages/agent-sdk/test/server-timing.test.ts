import { describe, expect, it } from 'vitest';
import { parseServerTiming } from '../src/recorder/server-timing.ts';

describe('parseServerTiming', () => {
  it('reads queue and compute from several comma-separated entries', () => {
    expect(parseServerTiming('queue;dur=12.5, compute;dur=48.1')).toEqual({ queueMs: 12.5, computeMs: 48.1, unparseable: false });
    expect(parseServerTiming('db;dur=3, cache;desc="hit", compute;dur=7, queue;dur=0.25')).toEqual({
      queueMs: 0.25,
      computeMs: 7,
      unparseable: false,
    });
  });

  it('does not split on a comma inside a quoted desc, and reads dur in any position and case', () => {
    expect(parseServerTiming('compute;desc="parse, plan, run";dur=20, QUEUE;DUR=1')).toEqual({ queueMs: 1, computeMs: 20, unparseable: false });
    expect(parseServerTiming('compute ; desc="say \\"hi\\", then go" ; dur="9.5"')).toEqual({ queueMs: null, computeMs: 9.5, unparseable: false });
  });

  it('gives null for a metric without dur, and for an absent header', () => {
    expect(parseServerTiming('compute, queue;desc="waited"')).toEqual({ queueMs: null, computeMs: null, unparseable: false });
    expect(parseServerTiming(undefined)).toEqual({ queueMs: null, computeMs: null, unparseable: false });
    expect(parseServerTiming('')).toEqual({ queueMs: null, computeMs: null, unparseable: false });
  });

  it('combines several headers; the first value of a name wins', () => {
    expect(parseServerTiming(['queue;dur=2', 'compute;dur=30, compute;dur=99'])).toEqual({ queueMs: 2, computeMs: 30, unparseable: false });
  });

  it('flags garbage instead of failing, and keeps what was valid', () => {
    expect(parseServerTiming('compute;dur=abc, queue;dur=3')).toEqual({ queueMs: 3, computeMs: null, unparseable: true });
    expect(parseServerTiming('compute;dur=-4')).toEqual({ queueMs: null, computeMs: null, unparseable: true });
    expect(parseServerTiming('queue;dur=1, compute;desc="never closed;dur=5')).toEqual({ queueMs: 1, computeMs: null, unparseable: true });
    expect(parseServerTiming('{"json": true}').unparseable).toBe(true);
    expect(parseServerTiming(['queue;dur=1', '@@@'])).toEqual({ queueMs: 1, computeMs: null, unparseable: true });
  });

  it('ignores stray commas and unknown params', () => {
    expect(parseServerTiming(' , compute;dur=5;x=y, ,')).toEqual({ queueMs: null, computeMs: 5, unparseable: false });
  });
});
