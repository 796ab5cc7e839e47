import { describe, expect, it } from 'vitest';
import { createServerTimingParser, parseServerTiming } from '../src/server-timing.ts';

const ok = (queueMs: number | null, computeMs: number | null) => ({ queueMs, computeMs, unparseable: 0 });

describe('parseServerTiming (W3C Server-Timing, read leniently)', () => {
  it('reads queue and compute from several comma-separated entries', () => {
    expect(parseServerTiming('queue;dur=12.5, compute;dur=48.1')).toEqual(ok(12.5, 48.1));
    expect(parseServerTiming('db;dur=3, cache;desc="hit", compute;dur=7, queue;dur=0.25')).toEqual(ok(0.25, 7));
  });

  it('does not split on a comma or semicolon inside a quoted desc, and reads dur in any position and case', () => {
    expect(parseServerTiming('compute;desc="parse, plan; run";dur=20, QUEUE;DUR=1')).toEqual(ok(1, 20));
    expect(parseServerTiming('compute ; desc="say \\"hi\\", then go" ; dur="9.5"')).toEqual(ok(null, 9.5));
    expect(parseServerTiming('compute;dur=1e1')).toEqual(ok(null, 10));
  });

  it('gives null for a metric without dur (allowed by the spec), and for an absent header', () => {
    expect(parseServerTiming('compute, queue;desc="waited"')).toEqual(ok(null, null));
    expect(parseServerTiming(undefined)).toEqual(ok(null, null));
    expect(parseServerTiming('')).toEqual(ok(null, null));
  });

  it('uses only the first dur of an entry, and the first entry of a name', () => {
    expect(parseServerTiming('compute;dur=5;dur=99')).toEqual(ok(null, 5));
    expect(parseServerTiming(['queue;dur=2', 'compute;dur=30, compute;dur=99'])).toEqual(ok(2, 30));
  });

  it('combines several header lines', () => {
    expect(parseServerTiming(['queue;dur=2', 'compute;dur=30'])).toEqual(ok(2, 30));
  });

  it('skips and counts what does not parse, keeping what was valid', () => {
    expect(parseServerTiming('compute;dur=abc, queue;dur=3')).toEqual({ queueMs: 3, computeMs: null, unparseable: 1 });
    expect(parseServerTiming('compute;dur=-4')).toEqual({ queueMs: null, computeMs: null, unparseable: 1 });
    expect(parseServerTiming('queue;dur=1, compute;desc="never closed;dur=5')).toEqual({ queueMs: 1, computeMs: null, unparseable: 1 });
    expect(parseServerTiming('{"json": true}').unparseable).toBeGreaterThan(0);
    expect(parseServerTiming(['queue;dur=1', '@@@', 'a b;dur=2'])).toEqual({ queueMs: 1, computeMs: null, unparseable: 2 });
    expect(parseServerTiming('compute;dur=, queue;dur=Infinity')).toEqual({ queueMs: null, computeMs: null, unparseable: 2 });
  });

  it('ignores stray commas and unknown params', () => {
    expect(parseServerTiming(' , compute;dur=5;x=y, ,')).toEqual(ok(null, 5));
  });
});

describe('createServerTimingParser with other metric names', () => {
  it('maps the names given (--compute-metric db, --queue-metric wait), case-insensitively', () => {
    const parse = createServerTimingParser({ compute: ['db'], queue: ['wait'] });
    expect(parse('DB;dur=12, wait;dur=3, compute;dur=99, queue;dur=98')).toEqual(ok(3, 12));
  });

  it('takes the first name of a list that is present, whatever order the server sent', () => {
    const parse = createServerTimingParser({ compute: ['app', 'total'], queue: ['queue'] });
    expect(parse('total;dur=50, app;dur=40')).toEqual(ok(null, 40));
    expect(parse('total;dur=50')).toEqual(ok(null, 50));
    // A higher-priority name without dur does not hide a lower one that has it.
    expect(parse('app, total;dur=50')).toEqual(ok(null, 50));
  });
});
