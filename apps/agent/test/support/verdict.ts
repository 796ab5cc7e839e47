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
  const broken: string[] = [];
  if (s.load_model === 'closed') {
    // Never more on the wire than the workers that exist: exact, on any box.
    if (h.in_flight_mean !== null) expect(h.in_flight_mean, why).toBeLessThanOrEqual(h.target + 1e-9);
    // With think time each worker has a request out only R/(R+Z) of the time (R: the mean latency).
    const r = s.mean_ms ?? null;
    const z = o.thinkTimeMs ?? 0;
    const expected = z > 0 && r !== null ? (h.target * r) / (r + z) : h.target;
    if (h.in_flight_mean !== null && h.in_flight_mean < LIMITS.inFlightRatio * expected - 0.001) broken.push('on the wire');
    else if (s.in_flight !== null && s.in_flight < LIMITS.inFlightRatio * expected - 0.001) broken.push("little's law");
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
  if (h.event_loop_delay_p99_ms !== null && h.event_loop_delay_p99_ms > lagLimit + 0.001) broken.push('lagged');
  // A rule broken by the recorded figures marks the level; the reason names the first rule broken
  // (the event loop's busyness is not among the recorded figures, so a clean-looking level may still
  // be flagged for it — and then the reason says so).
  const busy = /was busy [\d.]+% of the time, so it — not the target — set the pace\.$/;
  if (broken.length > 0) {
    expect(h.generator_limited, `${why} breaks: ${broken.join(', ')}`).toBe(true);
    // The busy-loop rule comes before the lag rule, so a level whose only broken figure is its lag may name either.
    if (broken[0] === 'lagged' && busy.test(h.reason ?? '')) return;
    expect(h.reason?.toLowerCase(), why).toContain(broken[0]!);
  } else if (h.generator_limited) {
    expect(h.reason, why).toMatch(busy);
  }
}
