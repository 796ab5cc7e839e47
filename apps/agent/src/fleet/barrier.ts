import { setTimeout as sleep } from 'node:timers/promises';

/** The last stretch before a barrier is spun, not slept: a sleeping process wakes late on a busy host. */
const SPIN_MS = 25;

/**
 * Returns at `at` on the clock `now` (ms), as close as this process can manage: sleeps until
 * SPIN_MS before, then spins. Timers alone woke agents tens of ms apart on a loaded 2-core box;
 * a process already on a core when the barrier passes starts within a fraction of a millisecond.
 */
export async function waitUntil(at: number, now: () => number): Promise<void> {
  const ahead = at - now() - SPIN_MS;
  if (ahead > 0) await sleep(ahead);
  while (now() < at) {
    // Spinning on purpose: see above. Nothing else of this agent needs the event loop meanwhile.
  }
}
