/**
 * The Universal Scalability Law and the quantities derived from it.
 *
 *   X(N) = λN / (1 + σ(N−1) + κN(N−1))
 *
 * λ is the throughput of one unit of load with no interference, σ the contention (the serial
 * fraction, Amdahl's α) and κ the coherency delay (the cost of keeping N workers consistent,
 * which grows with every pair of them and is what makes throughput go retrograde).
 */
export interface UslParams {
  lambda: number;
  sigma: number;
  kappa: number;
}

export function uslDenominator(n: number, sigma: number, kappa: number): number {
  return 1 + sigma * (n - 1) + kappa * n * (n - 1);
}

export function uslThroughput(n: number, p: UslParams): number {
  return (p.lambda * n) / uslDenominator(n, p.sigma, p.kappa);
}

/** N* = √((1−σ)/κ), where dX/dN = 0. Without coherency (κ = 0) throughput never peaks. */
export function uslPeakLevel(p: UslParams): number | null {
  if (!(p.kappa > 0) || p.sigma >= 1) return null;
  return Math.sqrt((1 - p.sigma) / p.kappa);
}

/** Amdahl's ceiling λ/σ: approached as N → ∞ when κ = 0. */
export function amdahlCeiling(p: UslParams): number | null {
  return p.sigma > 0 ? p.lambda / p.sigma : null;
}
