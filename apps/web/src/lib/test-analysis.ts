/** Test helper: a RunAnalysis with neutral defaults, overridden per test. Not imported by app code. */
import type { RunAnalysis, UslFit } from '@kneeboard/contracts';

export function fit(over: Partial<UslFit> = {}): UslFit {
  return {
    lambda: 24.17126804985445,
    sigma: 0.12929634672710233,
    kappa: 0.002739744776434756,
    lambda_se: 3.3297042885401744,
    sigma_se: 0.04926065540236772,
    kappa_se: 0.001069463864456346,
    r2: 0.9782744013930486,
    peak_level: 17.827076557322144,
    peak_qps: 107.79201213494822,
    model: 'usl',
    ...over,
  };
}

export function analysis(over: Partial<RunAnalysis> = {}): RunAnalysis {
  return {
    knee: null,
    knee_candidates: [],
    usl: null,
    usl_curve: [],
    efficiency: [],
    efficiency_basis: 'Efficiency is X(N) ÷ (N × X(1)).',
    verdict: 'Scales linearly.',
    littles_law: [],
    warnings: [],
    ...over,
  };
}
