export type Arrivals = 'uniform' | 'poisson';

/**
 * The gap to the next intended send, ms. Uniform spacing is what wrk2 and k6's arrival-rate
 * executors use; Poisson (exponential gaps, same mean) is how independent users arrive, and shows
 * queueing at lower utilisation.
 */
export function nextGapMs(rate: number, arrivals: Arrivals, random: () => number = Math.random): number {
  const mean = 1000 / rate;
  return arrivals === 'uniform' ? mean : -Math.log(1 - random()) * mean;
}
