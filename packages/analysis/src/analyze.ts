import type { AnalyzeCurveInput, RunAnalysis, UslFit } from '@kneeboard/contracts';
import { agentHealthWarning } from './agent-health.ts';
import { closedLoopKnee } from './closed-loop-knee.ts';
import { scalingEfficiency } from './efficiency.ts';
import { littlesLaw, littlesLawWarning } from './littles-law.ts';
import { openLoopKnee } from './open-loop.ts';
import { selectPoints } from './points.ts';
import { uslAtLevels, uslCurve } from './usl-curve.ts';
import { fitUsl, MIN_FIT_LEVELS, type UslFitResult } from './usl-fit.ts';
import { uslTrust } from './usl-trust.ts';
import { verdict } from './verdict.ts';
import { bracketIsCoarse, kneeBracket } from './knee-bracket.ts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { at } from './format.ts';

/** Re-exported where it always was; its home is `usl-trust.ts`, beside the other rules of trust. */
export { POOR_FIT_R2 } from './usl-trust.ts';

function toContract(fit: UslFitResult): UslFit {
  return {
    lambda: fit.lambda,
    sigma: fit.sigma,
    kappa: fit.kappa,
    lambda_se: fit.lambda_se,
    sigma_se: fit.sigma_se,
    kappa_se: fit.kappa_se,
    r2: fit.r2,
    peak_level: fit.peak_level,
    peak_qps: fit.peak_qps,
    model: fit.model,
  };
}

/**
 * Everything the run page says about a curve: the knee and its evidence, the USL fit and its
 * drawn curve, efficiency per level, Little's-law checks, one verdict and the warnings that
 * qualify them. Pure and synchronous; cheap enough to run on every live update.
 *
 * The USL is fitted to closed-loop sweeps only: it models N concurrent clients sharing a
 * system. In an open loop the level is an offered rate, and achieved-versus-offered is judged
 * directly.
 */
export function analyzeCurve(input: AnalyzeCurveInput): RunAnalysis {
  const { load_model: loadModel, parameter } = input;
  const { points, warnings } = selectPoints(input.curve, parameter);
  const closed = loadModel === 'closed';

  let fit: UslFitResult | null = null;
  if (closed) {
    if (points.length === 0) {
      warnings.push('No completed levels yet: nothing to fit.');
    } else if (points.length < MIN_FIT_LEVELS) {
      warnings.push(
        `Only ${points.length} completed level${points.length === 1 ? '' : 's'}: the USL needs at least ${MIN_FIT_LEVELS} to fit.`,
      );
    } else {
      fit = fitUsl(points);
    }
  }

  const trust = uslTrust(points, fit, parameter);
  warnings.push(...trust.reasons);
  const trusted = trust.trusted ? fit : null;
  const finding = closed ? closedLoopKnee(points, fit, trusted !== null, parameter) : openLoopKnee(points, parameter);
  warnings.push(...finding.warnings);
  const checks = closed ? littlesLaw(points) : [];
  const generatorWarning = littlesLawWarning(checks, parameter);
  if (generatorWarning) warnings.push(generatorWarning);
  const healthWarning = agentHealthWarning(input.curve, parameter);
  if (healthWarning) warnings.push(healthWarning);
  const { efficiency, basis } = scalingEfficiency(points, parameter);

  const minLevel = points[0]?.level ?? 0;
  const maxLevel = points[points.length - 1]?.level ?? 0;
  const knee = finding.knee ? { ...finding.knee, bracket: kneeBracket(points.map((p) => p.level), finding.knee.level) } : null;
  // A coarse grid is not a fault of the run, so it is said in the verdict, not as a warning.
  const resolution =
    knee && bracketIsCoarse(knee.bracket)
      ? ` The knee is somewhere between ${at(parameter, knee.bracket!.low)} and ${formatLevel(knee.bracket!.high)}: the levels swept cannot place it closer (kneeboard sweep --refine adds levels inside).`
      : '';
  return {
    knee,
    knee_candidates: finding.candidates,
    usl: fit ? toContract(fit) : null,
    usl_trusted: trusted !== null,
    usl_untrusted_reason: fit !== null ? (trust.reasons[0] ?? null) : null,
    usl_curve: fit ? uslCurve(fit, minLevel, maxLevel, fit.peak_level) : [],
    usl_fitted: fit ? uslAtLevels(fit, input.curve.map((p) => p.level)) : [],
    efficiency,
    efficiency_basis: basis,
    verdict: verdict({ points, parameter, loadModel, fit: trusted, saturationLevel: finding.saturationLevel }) + resolution,
    littles_law: checks,
    warnings,
  };
}
