import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MeasurementWindow, type WindowHandlers } from '../src/sweep/measurement-window.ts';

// A step planned as 100 ms of warm-up, then a 300 ms window, on a clock the fake timers drive.
const TIMES = { measureFrom: 100, endsAt: 400 };
let log: string[];
const now = () => Date.now();
const handlers = (extra: Partial<WindowHandlers> = {}): WindowHandlers => ({
  now,
  onOpen: () => log.push(`open@${now()}`),
  onClose: () => log.push(`close@${now()}`),
  deadline: { afterEndMs: 1_000, onDeadline: () => log.push(`deadline@${now()}`) },
  tick: { everyMs: 250, onTick: () => log.push(`tick@${now()}`) },
  onStop: (at) => log.push(`stop@${at}`),
  grace: { ms: 50, onGraceOver: () => log.push(`grace@${now()}`) },
  ...extra,
});

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  log = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe('MeasurementWindow', () => {
  it('opens at the end of warm-up, closes at the window end, then gives up at the deadline, ticking meanwhile', () => {
    const w = new MeasurementWindow(TIMES, handlers());
    vi.advanceTimersByTime(1_400);
    expect(log).toEqual(['open@100', 'tick@250', 'close@400', 'tick@500', 'tick@750', 'tick@1000', 'tick@1250', 'deadline@1400']);
    expect(w.stoppedAt).toBeUndefined();
    w.dispose();
    expect(w.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with windows due together, opens before it closes and closes before the deadline', () => {
    const w = new MeasurementWindow({ measureFrom: 0, endsAt: 0 }, handlers({ deadline: { afterEndMs: 0, onDeadline: () => log.push('deadline') }, tick: undefined }));
    vi.advanceTimersByTime(0);
    expect(log).toEqual(['open@0', 'close@0', 'deadline']);
    w.dispose();
  });

  it('stopped in the window: closes at once, calls onStop with the time, then the grace period runs out', () => {
    const w = new MeasurementWindow(TIMES, handlers({ tick: undefined }));
    vi.advanceTimersByTime(200);
    w.stop();
    w.stop(); // a second Ctrl-C changes nothing
    expect(w.stoppedAt).toBe(200);
    vi.advanceTimersByTime(100);
    expect(log).toEqual(['open@100', 'close@200', 'stop@200', 'grace@250']);
    // Nothing fires at the planned end: the close timer went with the stop.
    vi.advanceTimersByTime(10_000);
    expect(log).toHaveLength(5);
    expect(log[4]).toBe('deadline@1400');
    w.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stopped during warm-up: the window never opens', () => {
    const w = new MeasurementWindow(TIMES, handlers({ tick: undefined, deadline: undefined }));
    vi.advanceTimersByTime(50);
    w.stop();
    vi.advanceTimersByTime(1_000);
    expect(log).toEqual(['close@50', 'stop@50', 'grace@100']);
    w.dispose();
  });

  it('stops on the abort signal, and at once when it is already aborted', () => {
    const ctl = new AbortController();
    const w = new MeasurementWindow(TIMES, handlers({ signal: ctl.signal, tick: undefined, deadline: undefined, grace: undefined }));
    vi.advanceTimersByTime(150);
    ctl.abort();
    expect(w.stoppedAt).toBe(150);
    expect(log).toEqual(['open@100', 'close@150', 'stop@150']);
    w.dispose();

    log = [];
    const early = new MeasurementWindow(TIMES, handlers({ signal: AbortSignal.abort(), tick: undefined, deadline: undefined, grace: undefined }));
    expect(early.stoppedAt).toBe(150);
    expect(log).toEqual(['close@150', 'stop@150']);
    early.dispose();
  });

  it('dispose clears every timer and the abort listener: nothing fires or stays pending afterwards', () => {
    const ctl = new AbortController();
    const w = new MeasurementWindow(TIMES, handlers({ signal: ctl.signal }));
    expect(w.pending).toBe(4); // open, close, deadline, tick
    expect(vi.getTimerCount()).toBe(4);
    w.dispose();
    expect(w.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    ctl.abort();
    vi.advanceTimersByTime(10_000);
    expect(log).toEqual([]);
    expect(w.stoppedAt).toBeUndefined();
  });

  it('after dispose, close() still closes once (the end of a step that finished early) and stop() arms no grace timer', () => {
    const w = new MeasurementWindow(TIMES, handlers({ tick: undefined }));
    vi.advanceTimersByTime(150);
    w.dispose();
    w.close();
    w.close();
    w.stop();
    expect(log).toEqual(['open@100', 'close@150', 'stop@150']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a stop while the grace timer is pending is cleared by dispose: the cut-off never comes', () => {
    const w = new MeasurementWindow(TIMES, handlers({ tick: undefined, deadline: undefined }));
    w.stop();
    expect(w.pending).toBe(1);
    w.dispose();
    vi.advanceTimersByTime(1_000);
    expect(log).toEqual(['close@0', 'stop@0']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
