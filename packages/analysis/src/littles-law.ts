import type { AnalysisPoint, LittlesLawCheck } from '@kneeboard/contracts';
import { formatInFlight, formatLevel } from '@kneeboard/contracts/figures';
import { at } from './format.ts';

/** In-flight below 90% of the configured concurrency: more than run-to-run noise. */
export const GENERATOR_LIMIT_RATIO = 0.9;

/**
 * Little's law, L = X·W: in a closed loop the requests in flight must equal the configured
 * concurrency. When QPS × latency falls short, the clients were not keeping that many requests
 * outstanding (think time, a client-side pool, a saturated agent), so the level measured the
 * generator rather than the server. The mean latency is the right W; p50 stands in for it when
 * no mean is given, which reads low on right-skewed latencies and so errs towards flagging.
 */
export function littlesLaw(points: readonly AnalysisPoint[]): LittlesLawCheck[] {
  const out: LittlesLawCheck[] = [];
  for (const p of points) {
    let inFlight: number;
    let source: LittlesLawCheck['source'];
    if (p.in_flight != null) {
      inFlight = p.in_flight;
      source = 'in_flight';
    } else if (p.mean_ms != null) {
      inFlight = (p.qps * p.mean_ms) / 1000;
      source = 'mean';
    } else if (p.p50_ms !== null) {
      inFlight = (p.qps * p.p50_ms) / 1000;
      source = 'p50';
    } else {
      continue;
    }
    const ratio = inFlight / p.level;
    out.push({ level: p.level, in_flight: inFlight, ratio, source, generator_limited: ratio < GENERATOR_LIMIT_RATIO });
  }
  return out;
}

export function littlesLawWarning(checks: readonly LittlesLawCheck[], parameter: string): string | null {
  const limited = checks.filter((c) => c.generator_limited);
  if (limited.length === 0) return null;
  const detail = limited
    .map((c, i) => `${i === 0 ? at(parameter, c.level) : formatLevel(c.level)} (${formatInFlight(c.in_flight)} in flight)`)
    .join(', ');
  const latency = limited.some((c) => c.source === 'p50') ? 'QPS × p50 (standing in for the mean latency)' : 'QPS × mean latency';
  return (
    `Possibly generator-limited at ${detail}: by Little's law, ${latency} falls more than 10% short of the ` +
    `configured level, so the load generator, not the server, may be the ceiling there.`
  );
}
