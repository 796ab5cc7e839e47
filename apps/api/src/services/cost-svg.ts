import { renderCostSvg } from '@kneeboard/svg-charts';
import { levelSelectionContains, NO_SERVER_METRICS, type LevelSelection, type RunCost, type RunDetail } from '@kneeboard/contracts';

/** The run page's "What it costs" chart for embeds: the run's title, the verdict and the scaling sentence above, the knee marked. */
export function runCostSvg(detail: Pick<RunDetail, 'run' | 'analysis'>, cost: RunCost, view: { levels?: LevelSelection } = {}): string {
  const { run } = detail;
  const knee = detail.analysis.knee;
  return renderCostSvg({
    title: `What it costs: ${run.service} ${run.release}${run.name ? ` — ${run.name}` : ''}`,
    subtitle: cost.verdict,
    caption: cost.scaling,
    parameter: run.parameter,
    points: cost.levels.filter((l) => levelSelectionContains(view.levels, l.level)).map((l) => ({ level: l.level, cores_used: l.cores_used, qps_per_core: l.qps_per_core })),
    marker: knee ? { level: knee.level, label: `knee · ${knee.level}` } : null,
    empty: cost.levels.length === 0 ? NO_SERVER_METRICS : 'No level with a CPU figure in this selection',
  });
}
