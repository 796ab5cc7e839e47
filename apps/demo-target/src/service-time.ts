/**
 * The service time of one request: `serviceMs`, plus uniform jitter in ±`jitterMs` when asked.
 * Uniform (not exponential) keeps the mean at exactly S and the spread bounded, so the ground
 * truth — max throughput W·1000/S, knee at W — still holds while percentiles get a visible spread.
 */
export function sampleServiceMs(serviceMs: number, jitterMs: number, random: () => number = Math.random): number {
  if (jitterMs === 0) return serviceMs;
  return Math.max(0, serviceMs + (2 * random() - 1) * jitterMs);
}
