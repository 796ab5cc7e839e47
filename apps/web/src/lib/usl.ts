/**
 * Prepare the Universal Scalability Law fit for the page: the fitted line over the measured
 * throughput, whether it is shown by default, and its parameters as text.
 *
 * Which fitted points are drawn (clipped to the shown levels) is chart-prep's `fitLine`, shared with
 * the comparison; they sit at levels that were not swept, so they are placed by value.
 *
 * Whether the fit is good, and the fitted throughput at a level, are the analysis' decisions
 * (`usl_trusted`, `usl_curve`, `usl_fitted` in the RunAnalysis): nothing here judges R² or
 * evaluates the model.
 */
import type { UslFit } from '@kneeboard/contracts';
import { formatLevel, formatR2, formatSignificant, formatWithError } from '@kneeboard/contracts/figures';

/** A point in pixels; undefined where the scale could not place it. */
export interface PixelPoint {
  x: number | undefined;
  y: number | undefined;
}

/** An SVG path through the points, broken (a new `M`) wherever a point could not be placed. */
export function polylinePath(points: ReadonlyArray<PixelPoint>): string {
  const parts: string[] = [];
  let pen = false;
  for (const { x, y } of points) {
    if (x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y)) {
      pen = false;
      continue;
    }
    parts.push(`${pen ? 'L' : 'M'}${round(x)},${round(y)}`);
    pen = true;
  }
  return parts.join('');
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

export interface FitParamRow {
  key: 'lambda' | 'sigma' | 'kappa' | 'r2' | 'peak_level' | 'peak_qps';
  /** `λ`, `σ`, `N*`… */
  symbol: string;
  /** `24.2 ± 3.3` */
  value: string;
  unit: string;
  /** What the parameter means, for a title attribute. */
  hint: string;
}

export interface UslFitSummary {
  /** As the analysis judged it (`usl_trusted`). */
  quality: 'good' | 'poor';
  model: UslFit['model'];
  /** λ, σ, κ, R², then N* and X(N*) when the curve peaks. */
  rows: FitParamRow[];
  /** When it does not peak: `asymptote λ/σ = 2,000 req/s, no peak` (Amdahl) or why not (linear). */
  note: { text: string; hint: string } | null;
  /**
   * When the analysis does not trust the fit: that it is not drawn by default, and (on hover) the
   * analysis' reason — a poor R², or residuals with a pattern a high R² hides.
   */
  distrust: { text: string; hint: string } | null;
}

const withSe = (value: number, se: number | null) => formatWithError(value, se, 3);
const R2_HINT = "share of the measured throughput's variation the fit explains";

/**
 * The fit's parameters as text: λ, σ, κ with ± one standard error (when the fit has spare degrees
 * of freedom), R², and where throughput peaks. Amdahl fits (κ negligible) have no peak but an
 * asymptote λ/σ; linear fits have neither. `untrustedReason` is the analysis' own sentence
 * (`usl_untrusted_reason`); nothing here judges the fit.
 */
export function uslFitSummary(fit: UslFit, trusted: boolean, parameter: string, untrustedReason: string | null = null): UslFitSummary {
  const rows: FitParamRow[] = [
    { key: 'lambda', symbol: 'λ', value: withSe(fit.lambda, fit.lambda_se), unit: 'req/s', hint: `throughput of one unit of load (${parameter} 1) with no contention` },
    fit.model === 'linear'
      ? { key: 'sigma', symbol: 'σ', value: '0', unit: 'negligible', hint: 'contention moves the fit by under 2% over the measured range, so it is fixed at 0 (linear)' }
      : { key: 'sigma', symbol: 'σ', value: withSe(fit.sigma, fit.sigma_se), unit: '', hint: 'contention: the share of the work that is serialized (queueing for a shared resource)' },
    // Amdahl and linear fits fix κ at 0: it has no standard error, whatever the solver reports.
    fit.model === 'usl'
      ? { key: 'kappa', symbol: 'κ', value: withSe(fit.kappa, fit.kappa_se), unit: '', hint: 'coherency: the cost of keeping units in step, growing with N²; it makes throughput fall past the peak' }
      : { key: 'kappa', symbol: 'κ', value: '0', unit: 'negligible', hint: 'coherency moves the fit by under 2% over the measured range, so it is fixed at 0 (Amdahl)' },
    { key: 'r2', symbol: 'R²', value: formatR2(fit.r2, 3), unit: '', hint: trusted ? R2_HINT : `${R2_HINT}; the analysis does not trust the fit, so read σ, κ and the peak with care` },
  ];
  let note: UslFitSummary['note'] = null;
  if (fit.model === 'usl' && fit.peak_level !== null && fit.peak_qps !== null) {
    rows.push(
      { key: 'peak_level', symbol: 'N*', value: formatLevel(fit.peak_level), unit: parameter, hint: 'where fitted throughput peaks: √((1−σ)/κ)' },
      {
        key: 'peak_qps',
        symbol: 'X(N*)',
        value: formatSignificant(fit.peak_qps, 3),
        unit: 'req/s',
        hint: trusted ? 'the fitted peak throughput' : 'the fitted peak throughput — of a fit the analysis does not trust, so not a prediction',
      },
    );
  } else if (fit.model === 'amdahl' && fit.peak_qps !== null) {
    note = {
      text: `asymptote λ/σ = ${formatSignificant(fit.peak_qps, 3)} req/s, no peak`,
      hint: 'κ is negligible over the measured range (Amdahl): throughput approaches λ/σ but never peaks',
    };
  } else {
    note = { text: 'no peak: linear over the measured range', hint: 'σ and κ are both negligible over the measured range' };
  }
  const distrust = trusted
    ? null
    : { text: 'not trusted: not drawn over the measurements by default', hint: untrustedReason ?? 'the analysis does not trust this fit' };
  return { quality: trusted ? 'good' : 'poor', model: fit.model, rows, note, distrust };
}
