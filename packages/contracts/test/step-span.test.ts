import { describe, expect, it } from 'vitest';
import { MAX_RUN_STEPS_SPAN_MS, stepSpanProblem } from '../src/step.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27);

describe("stepSpanProblem: a run's steps span at most 7 days", () => {
  it('takes a first step anywhere (an imported file keeps its own times) and steps close to the others', () => {
    expect(stepSpanProblem({ from: null, to: null }, { started_at: NOW - 400 * DAY, ended_at: NOW - 400 * DAY + 60_000 })).toBeNull();
    expect(stepSpanProblem({ from: NOW - DAY, to: NOW }, { started_at: NOW + 60_000, ended_at: null })).toBeNull();
    expect(stepSpanProblem({ from: NOW, to: NOW + 60_000 }, { started_at: NOW + MAX_RUN_STEPS_SPAN_MS - 60_000, ended_at: NOW + MAX_RUN_STEPS_SPAN_MS })).toBeNull();
  });

  it('refuses a step ten years away from the others, naming its start, and a window that alone is too long, naming its end', () => {
    const far = stepSpanProblem({ from: NOW - 60_000, to: NOW }, { started_at: NOW - 3650 * DAY, ended_at: NOW - 3650 * DAY + 60_000 });
    expect(far?.field).toBe('started_at');
    expect(far?.message).toMatch(/^the run's steps cover 2026-11-26T23:59:00.000Z … 2026-11-27T00:00:00.000Z; with this window they would span 2016-.* at most 7 days$/);
    expect(stepSpanProblem({ from: NOW, to: NOW + 60_000 }, { started_at: NOW + 30_000, ended_at: NOW + 8 * DAY })?.field).toBe('ended_at');
    expect(stepSpanProblem({ from: null, to: null }, { started_at: NOW, ended_at: NOW + 8 * DAY })?.field).toBe('ended_at');
  });
});
