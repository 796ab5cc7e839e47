/**
 * Epoch milliseconds with the monotonic clock's sub-millisecond grain, kept on the wall clock.
 *
 * Why not `performance.timeOrigin + performance.now()`: that is the wall clock at start-up plus a
 * monotonic clock, and the monotonic clock stops while the machine is suspended (a laptop's lid, a
 * paused VM). A process that lives across one — an SDK inside a service, an agent waiting for
 * plans — would stamp its events seconds early, out of the step windows the API keeps on its own
 * wall clock (seen on CI: an API 14.6 s behind the agents it coordinated). Why not `Date.now()`
 * alone: latencies and barriers are read to fractions of a millisecond.
 *
 * Each read checks the wall clock: within its truncation to the millisecond the monotonic reading
 * stands; further off (a suspend, or the clock set by hand or by NTP stepping it) the wall clock
 * wins and becomes the new anchor.
 */
export function createWallClock(monotonicMs: () => number = () => performance.now(), wallMs: () => number = () => Date.now()): () => number {
  let epoch = wallMs() - monotonicMs();
  return () => {
    const mono = monotonicMs();
    const wall = wallMs();
    const t = epoch + mono;
    // Date.now() truncates: t in [wall, wall + 1) agrees with it; a millisecond of slack each side
    // keeps the two reads' own gap from re-anchoring on every call.
    if (t >= wall - 1 && t < wall + 2) return t;
    epoch = wall + 0.5 - mono;
    return wall + 0.5;
  };
}

/** This process's wall clock, epoch ms (see createWallClock). */
export const wallClockMs: () => number = createWallClock();
