/** One exchange as the agent saw it: t0 and t3 on its clock, t1 and t2 on the API's. */
export interface ClockSample {
  t0: number;
  t1: number;
  t2: number;
  t3: number;
}

export interface ClockOffset {
  /** API clock minus this agent's clock, ms: add it to a local time to get the API's. */
  offsetMs: number;
  /** The round trip of the exchange the offset came from. */
  rttMs: number;
  samples: number;
}

/** NTP's formulas: the offset assumes the way there and back took equally long; rtt excludes the API's own time. */
export function offsetOf(s: ClockSample): { offsetMs: number; rttMs: number } {
  return { offsetMs: (s.t1 - s.t0 + (s.t2 - s.t3)) / 2, rttMs: s.t3 - s.t0 - (s.t2 - s.t1) };
}

/**
 * The offset from the exchange with the smallest round trip: the one least delayed by queues (on
 * either side), so its symmetric-path assumption is the least wrong — its error is at most rtt/2.
 */
export function bestOffset(samples: readonly ClockSample[]): ClockOffset {
  if (samples.length === 0) throw new Error('no clock samples');
  let best = offsetOf(samples[0]!);
  for (const s of samples.slice(1)) {
    const o = offsetOf(s);
    if (o.rttMs < best.rttMs) best = o;
  }
  return { ...best, samples: samples.length };
}

/** Runs `count` exchanges one after another; `exchange` sends t0 and returns the API's t1, t2. */
export async function measureOffset(exchange: (t0: number) => Promise<{ t1: number; t2: number }>, now: () => number, count = 8): Promise<ClockOffset> {
  const samples: ClockSample[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = now();
    const { t1, t2 } = await exchange(t0);
    samples.push({ t0, t1, t2, t3: now() });
  }
  return bestOffset(samples);
}
