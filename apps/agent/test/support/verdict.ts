import { expect } from 'vitest';
import { LIMITS } from '../../src/load/health.ts';
import type { LevelSummary } from '../../src/index.ts';

/**
 * Whether the agent could hold a level depends on the box it shares (a busy core stretches its
 * turnaround, lags its loop, makes its sends late), so a test on a shared box cannot require a
 * level to be clean. What the product promises, on any box, is that its verdict follows from the
 * numbers it recorded: every rule a level's recorded figures break marks it generator-limited, a
 * level marked so says which rule in its reason, and a level left clean broke none. This checks
 * exactly that, from the level's own figures and the thresholds in `LIMITS` (the rules' one home).
 * Rounding: the agent stores in-flight figures to 3 decimals, hence the 0.001 of slack.
 */
export function expectVerdictFollowsFigures(s: LevelSummary, o: { windowMs: number; thinkTimeMs?: number }): void {
  const h = s.health;
  const why = JSON.stringify({ level: s.level, health: h, in_flight: s.in_flight, sent_per_s: s.sent_per_s, p50_ms: s.p50_ms });
  expect(['closed', 'open'], why).toContain(s.load_model);
  expect(h.target, why).toBe(s.load);
  expect(h.reason === null, why).toBe(!h.generator_limited);
  // A rule is broken when the figure is past its threshold by more than the 3-decimal rounding, and
  // borderline when within it (the agent judged the unrounded figure, which may lie either side).
  const broken: string[] = [];
  const borderline: string[] = [];
  const check = (rule: string, value: number | null, limit: number, below: boolean) => {
    if (value === null) return;
    const past = below ? limit - value : value - limit;
    if (past > 0.001) broken.push(rule);
    else if (past > -0.001) borderline.push(rule);
  };
  if (s.load_model === 'closed') {
    // Never more on the wire than the workers that exist: exact, on any box.
    if (h.in_flight_mean !== null) expect(h.in_flight_mean, why).toBeLessThanOrEqual(h.target + 1e-9);
    // With think time each worker has a request out only R/(R+Z) of the time (R: the mean latency).
    const r = s.mean_ms ?? null;
    const z = o.thinkTimeMs ?? 0;
    const expected = z > 0 && r !== null ? (h.target * r) / (r + z) : h.target;
    check('on the wire', h.in_flight_mean, LIMITS.inFlightRatio * expected, true);
    check("little's law", s.in_flight, LIMITS.inFlightRatio * expected, true);
  } else {
    // Every send due in the window was either made or counted missed: the schedule is kept in count, whatever the timers did.
    const sent = Math.round(((s.sent_per_s ?? 0) * o.windowMs) / 1000);
    const intended = sent + h.missed_sends;
    expect(h.late_sends, why).toBeLessThanOrEqual(sent);
    if (h.missed_sends > 0) broken.push('never made');
    else if (sent < LIMITS.sendRatio * intended) broken.push('sent only');
    if (intended > 0 && h.late_sends > LIMITS.lateShare * intended) broken.push('of sends left more than');
  }
  const lagLimit = Math.max(LIMITS.loopDelayFloorMs, LIMITS.loopDelayShareOfP50 * (s.p50_ms ?? 0));
  check('lagged', h.event_loop_delay_p99_ms, lagLimit, false);
  // A rule broken by the recorded figures marks the level; the reason names the first rule broken
  // (the event loop's busyness is not among the recorded figures, so a clean-looking level may still
  // be flagged for it — and then the reason says so).
  if (broken.length > 0) expect(h.generator_limited, `${why} breaks: ${broken.join(', ')}`).toBe(true);
  // A flagged level's reason names a rule its figures break (or sit on), or the loop's busyness,
  // which is not among the recorded figures.
  if (h.generator_limited) {
    const named = [...broken, ...borderline].some((rule) => h.reason!.toLowerCase().includes(rule));
    if (!named) expect(h.reason, why).toMatch(/was busy [\d.]+% of the time, so it — not the target — set the pace\.$/);
  }
}
