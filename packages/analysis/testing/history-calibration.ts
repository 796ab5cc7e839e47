import { changePoints, type ChangePointOptions } from '../src/history/change-points.ts';
import { prng } from './prng.ts';

/**
 * Simulated release histories for calibrating change-point detection: one value per release,
 * lognormal noise (sd of the log = `noise`), and optionally a step of `step` (a ratio, 1.1 = +10%)
 * from a release drawn uniformly in [stepFrom, stepTo]. Shared by the test and the bench.
 */
export interface HistoryScenario {
  releases: number;
  noise: number;
  step: number;
  stepFrom: number;
  stepTo: number;
}

export interface HistoryCalibration {
  trials: number;
  /** Trials with no change point at all. */
  none: number;
  /** Trials with a change point exactly at the step's release, and within one release of it. */
  exact: number;
  within1: number;
  /** Trials with a change point further than one release from the step (for A/A: any). */
  spurious: number;
}

export function calibrateChangePoints(scenario: HistoryScenario, trials: number, seed: number, options: Partial<ChangePointOptions> = {}): HistoryCalibration {
  const u = prng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const out: HistoryCalibration = { trials, none: 0, exact: 0, within1: 0, spurious: 0 };
  for (let t = 0; t < trials; t++) {
    const at = scenario.stepFrom + Math.floor(u() * (scenario.stepTo - scenario.stepFrom + 1));
    const values = Array.from({ length: scenario.releases }, (_, i) => 100 * (scenario.step !== 1 && i >= at ? scenario.step : 1) * Math.exp(scenario.noise * gauss()));
    const found = changePoints(values, { ...options, seed: seed * 100_003 + t });
    if (found.length === 0) out.none++;
    if (scenario.step === 1) {
      if (found.length > 0) out.spurious++;
      continue;
    }
    if (found.some((c) => c.index === at)) out.exact++;
    if (found.some((c) => Math.abs(c.index - at) <= 1)) out.within1++;
    if (found.some((c) => Math.abs(c.index - at) > 1)) out.spurious++;
  }
  return out;
}
