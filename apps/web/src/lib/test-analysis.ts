/**
 * Test helper: the RunAnalysis the API would send for a curve, computed by `@kneeboard/analysis`
 * exactly as the API computes it, never written by hand, so a test cannot pass on a shape or a
 * decision (a trusted fit, a fitted QPS) the analysis would never produce. Not imported by app code.
 */
import { analyzeCurve } from '@kneeboard/analysis';
import type { CurvePoint, LoadModel, RunAnalysis } from '@kneeboard/contracts';

export function analysisOf(curve: ReadonlyArray<CurvePoint>, run: { load_model?: LoadModel; parameter?: string } = {}): RunAnalysis {
  return analyzeCurve({ curve: [...curve], load_model: run.load_model ?? 'closed', parameter: run.parameter ?? 'concurrency' });
}

/**
 * The analysis with its knee moved to `level`, for tests about where a knee is drawn (overlays of
 * many runs), not about how it is found: everything else is the analysis' own.
 */
export function withKnee(analysis: RunAnalysis, level: number): RunAnalysis {
  return { ...analysis, knee: { level, method: 'kneedle', reason: `Throughput stops growing at concurrency ${level}.`, bracket: null } };
}
