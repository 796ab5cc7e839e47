import type { Capacity, CapacityProjection, UslFit } from '@kneeboard/contracts';
import { formatPercent, formatQps } from '@kneeboard/contracts/figures';
import { uslThroughput } from './usl.ts';

export interface ProjectionInput {
  /** The analysis' fit and its trust: the one judgement of trust is `uslTrust`'s, read here as sent. */
  usl: UslFit | null;
  uslTrusted: boolean;
  uslUntrustedReason: string | null;
  capacity: Capacity;
  /** Traffic to serve, req/s: how many instances. */
  targetQps?: number;
  /** Traffic served today by one instance, req/s: how much headroom. */
  currentQps?: number;
}

export const PROJECTION_ASSUMPTION =
  'Instances are independent and identical (no shared database, cache or lock between them), traffic is spread evenly, and each keeps the same SLOs; the USL is only read between the levels measured.';

/** Points read inside the bracket: the fit may peak between its two levels. */
const BRACKET_STEPS = 16;

/**
 * The least and the most the fit gives for throughput anywhere between two levels. The fit's
 * standard errors are not used to widen this: the contract carries λ, σ and κ's SEs without their
 * covariance, and they are strongly correlated, so ±1.96 SE on each independently is far wider
 * than the data allow (seed 004's carrier sweep: 74,400…221,000 QPS around a bracket measured at
 * 126,300…128,050).
 */
function band(fit: UslFit, from: number, to: number): { low: number; high: number } {
  let low = Infinity;
  let high = 0;
  for (let i = 0; i <= BRACKET_STEPS; i++) {
    const x = uslThroughput(from + ((to - from) * i) / BRACKET_STEPS, fit);
    low = Math.min(low, x);
    high = Math.max(high, x);
  }
  return { low, high };
}

const refuse = (reason: string): CapacityProjection => ({
  refused: reason,
  assumption: PROJECTION_ASSUMPTION,
  per_instance: null,
  headroom: null,
  instances: null,
  summary: `No projection: ${reason}`,
});

/**
 * How far one instance is from its capacity, and how many instances a traffic target needs, from
 * a trusted USL fit and the capacity bracket under SLOs. The USL gives the throughput at the
 * capacity's crossing; the interval is everything the measurements and the fit give between the
 * level that holds and the first that breaks (the capacity bracket):
 * `low` is the least an instance is sure to serve within the SLOs, `high` the most it could.
 * Refused, with the reason, when the fit is missing or not trusted (a hard limit, a poor fit) or
 * no level holds: a projection from a curve the model does not describe is a guess.
 */
export function projectCapacity(input: ProjectionInput): CapacityProjection {
  const { usl, capacity } = input;
  if (usl === null) return refuse('no USL fit (the USL is fitted to closed-loop sweeps of at least three completed levels).');
  if (!input.uslTrusted) return refuse(input.uslUntrustedReason ?? 'the USL fit is not trusted.');
  const holds = capacity.bracket.holds;
  if (holds === null || capacity.level === null) return refuse(`no capacity under ${capacity.slos.join(', ')}: ${capacity.summary}`);
  const breaks = capacity.bracket.breaks;
  const crossing = capacity.bracket.crossing;

  const at = crossing?.level ?? holds.level;
  const qps = uslThroughput(at, usl);
  const fitBand = band(usl, holds.level, breaks?.level ?? holds.level);
  // The measured bracket is evidence too: the level that held served holds.qps within the SLOs.
  const low = Math.min(holds.qps, fitBand.low, qps);
  const high = breaks ? Math.max(breaks.qps, holds.qps, fitBand.high, qps) : null;
  const perInstance = { qps: breaks ? qps : Math.max(qps, holds.qps), low, high };

  const headroom =
    input.currentQps !== undefined
      ? {
          current_qps: input.currentQps,
          qps: perInstance.qps - input.currentQps,
          ratio: perInstance.qps / input.currentQps - 1,
          low_qps: low - input.currentQps,
          low_ratio: low / input.currentQps - 1,
        }
      : null;
  const count = (per: number) => Math.max(1, Math.ceil(input.targetQps! / per - 1e-9));
  const instances =
    input.targetQps !== undefined
      ? { target_qps: input.targetQps, needed: count(perInstance.qps), fewest: high === null ? null : count(high), most: count(low) }
      : null;

  const within = capacity.slos.join(', ');
  const interval = high === null ? `at least ${formatQps(low)}` : `${formatQps(low)}…${formatQps(high)}`;
  const parts = [`One instance serves ≈ ${formatQps(perInstance.qps)} QPS within ${within} (${interval}).`];
  if (headroom) {
    parts.push(
      headroom.qps >= 0
        ? `From ${formatQps(headroom.current_qps)} QPS that is ${formatPercent(headroom.ratio)} headroom (${formatPercent(Math.max(0, headroom.low_ratio))} for sure).`
        : `${formatQps(headroom.current_qps)} QPS is already past capacity, by ${formatPercent(-headroom.ratio)}.`,
    );
  }
  if (instances) {
    const range = instances.fewest === null ? `at most ${instances.most}` : instances.fewest === instances.most ? `${instances.most}` : `${instances.fewest}–${instances.most}`;
    parts.push(`${formatQps(instances.target_qps)} QPS needs ${instances.needed} instance${instances.needed === 1 ? '' : 's'} (${range}), if instances are independent and keep the same SLOs.`);
  }
  return { refused: null, assumption: PROJECTION_ASSUMPTION, per_instance: perInstance, headroom, instances, summary: parts.join(' ') };
}
