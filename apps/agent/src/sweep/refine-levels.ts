import { analyzeCurve, bracketIsCoarse, levelsInside } from '@kneeboard/analysis';
import type { AnalysisPoint, LoadModel } from '@kneeboard/contracts';

/** Levels `--refine` adds inside the knee's bracket. */
const REFINE_LEVELS = 3;

/**
 * The levels to add after a sweep so its knee can be placed closer: a few inside the bracket the
 * grid leaves (e.g. 10, 11, 13 for a knee in (8, 16]), whole numbers unless the levels are rates.
 * Empty when there is no knee, the grid is already fine there, or nothing new fits. `measured`:
 * this process's own level summaries, or a run's curve from the API (several agents).
 */
export function refineLevels(measured: ReadonlyArray<AnalysisPoint & { aborted?: boolean }>, loadModel: LoadModel, parameter: string): number[] {
  const done = measured.filter((s) => !s.aborted);
  const analysis = analyzeCurve({ curve: done, load_model: loadModel, parameter });
  const bracket = analysis.knee?.bracket;
  if (!bracket || !bracketIsCoarse(bracket)) return [];
  const swept = new Set(measured.map((s) => s.level));
  const wholeNumbers = loadModel === 'closed' || done.every((s) => Number.isInteger(s.level));
  return levelsInside(bracket, REFINE_LEVELS, wholeNumbers).filter((l) => !swept.has(l));
}
