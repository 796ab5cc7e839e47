/**
 * Prepare the curve table's derived columns from the analysis: scaling efficiency per level (text
 * and an inline bar) and the Little's-law in-flight check that flags generator-limited levels.
 */
import type { CurvePoint, LatencySource, RunAnalysis } from '@kneeboard/contracts';
import { formatInFlight, formatLevel, formatPercent } from '@kneeboard/contracts/figures';
import { normalizeCurve } from './curve-series.ts';

export interface EfficiencyCell {
  ratio: number;
  /** `63%` */
  text: string;
  /** Width of the inline bar, 0–100 (% of the cell); superlinear levels are capped at 100. */
  barPct: number;
  /** Above 100%: each unit of load added more than the first (caches warming, batching). */
  superlinear: boolean;
}

/** X(N) ÷ (N·X(1)) as a table cell; null where the analysis has no efficiency (in progress, no successes). */
export function efficiencyCell(ratio: number | null | undefined): EfficiencyCell | null {
  if (ratio == null || !Number.isFinite(ratio) || ratio < 0) return null;
  return { ratio, text: formatPercent(ratio), barPct: Math.min(100, ratio * 100), superlinear: ratio > 1.005 };
}

const SOURCE_TEXT: Record<LatencySource, string> = {
  in_flight: 'counted by the agent',
  mean: 'QPS × mean latency',
  p50: 'QPS × p50 (no mean latency was reported, so p50 stands in)',
};

export interface InFlightCell {
  inFlight: number;
  /** `19.9`, one decimal */
  text: string;
  /** in flight ÷ level: `62%` */
  ratioText: string;
  generatorLimited: boolean;
  /** One sentence for the title attribute: what was measured and what it means. */
  title: string;
}

export interface CurveTableRow {
  point: CurvePoint;
  efficiency: EfficiencyCell | null;
  inFlight: InFlightCell | null;
}

/**
 * The agent's own verdict on a step outranks the inference: a step it flagged generator-limited is
 * flagged here with its reason, and an open-loop step (no Little's-law check) still gets its
 * directly counted in-flight figure.
 */
function withAgentHealth(cell: InFlightCell | null, point: CurvePoint, parameter: string): InFlightCell | null {
  const health = point.health;
  if (!health) return cell;
  let out = cell;
  if (!out && health.in_flight_mean !== null && health.target > 0) {
    const ratio = health.in_flight_mean / health.target;
    out = {
      inFlight: health.in_flight_mean,
      text: formatInFlight(health.in_flight_mean),
      ratioText: formatPercent(ratio),
      generatorLimited: false,
      title: `${formatInFlight(health.in_flight_mean)} requests in flight on average (counted by the agent) at ${parameter} ${formatLevel(point.level)}.`,
    };
  }
  if (!out || !health.generator_limited) return out;
  return { ...out, generatorLimited: true, title: `${out.title} The agent flagged this step generator-limited${health.reason ? `: ${health.reason}` : '.'}` };
}

/** One row per level (sorted, one per level) with the analysis' efficiency and Little's-law check attached. */
export function curveTableRows(curve: ReadonlyArray<CurvePoint>, analysis: RunAnalysis, parameter: string): CurveTableRow[] {
  const eff = new Map(analysis.efficiency.map((e) => [e.level, e.efficiency]));
  const little = new Map(analysis.littles_law.map((c) => [c.level, c]));
  return normalizeCurve(curve).map((point) => {
    const check = point.in_progress ? undefined : little.get(point.level);
    let inFlight: InFlightCell | null = null;
    if (check) {
      const at = `${parameter} ${formatLevel(point.level)}`;
      const what = `Little's law: ${formatInFlight(check.in_flight)} requests in flight (${SOURCE_TEXT[check.source]}), ${formatPercent(check.ratio)} of ${at}.`;
      inFlight = {
        inFlight: check.in_flight,
        text: formatInFlight(check.in_flight),
        ratioText: formatPercent(check.ratio),
        generatorLimited: check.generator_limited,
        title: check.generator_limited ? `${what} More than 10% short: the load generator, not the server, may be the ceiling here.` : what,
      };
    }
    if (!point.in_progress) inFlight = withAgentHealth(inFlight, point, parameter);
    return { point, efficiency: point.in_progress ? null : efficiencyCell(eff.get(point.level)), inFlight };
  });
}
