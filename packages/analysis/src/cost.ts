import { CPU_METRIC, NO_SERVER_METRICS, formatBytes, formatCoresUsed, formatLevel, formatPercent, formatQps, formatSignificant, MEMORY_METRIC, type CurvePoint, type LevelCost, type RunCost, type ServerMetricSource, type StepWindow } from '@kneeboard/contracts';
import { scalingSentence } from './cost-scaling.ts';
import { escapeMarkdownText } from './markdown-text.ts';

/**
 * What each level cost the server (issue 28), from the per-second values the agent stored: cores
 * used, peak memory, QPS per core, CPU-seconds per 1,000 requests, the per-core scaling efficiency,
 * and whether the knee is where the CPU ran out. Pure: the API passes the stored rows in.
 */

/** One step's stored server metrics (the clickhouse package's StoredStepMetrics has this shape). */
export interface StepMetrics {
  level: number;
  source: ServerMetricSource;
  cores_available: number | null;
  notes: string[];
  series: ReadonlyMap<string, { fn: 'rate' | 'mean' | 'max'; points: ReadonlyArray<{ second: number; value: number }> }>;
}

export interface CostInput {
  curve: readonly CurvePoint[];
  steps: readonly StepWindow[];
  metrics: readonly StepMetrics[];
  /** The knee's level, if the analysis found one. */
  knee: number | null;
  parameter: string;
}

/** At or above this share of the cores available, a level is CPU-saturated. */
export const CPU_SATURATED_SHARE = 0.8;

/** The seconds of a step's measured window: from measure_from to the end, both rounded into whole seconds. */
function inWindow(step: StepWindow, second: number): boolean {
  const ms = second * 1000;
  return ms >= step.measure_from && (step.ended_at === null || ms <= step.ended_at);
}

/** One level's cost; QPS per core and CPU-seconds per 1,000 requests need the curve's point. */
export function levelCost(metrics: StepMetrics, step: StepWindow | undefined, point: CurvePoint | undefined): Omit<LevelCost, 'efficiency_per_core'> {
  const within = (name: string) => {
    const series = metrics.series.get(name);
    if (!series || !step) return [];
    return series.points.filter((p) => inWindow(step, p.second)).map((p) => p.value);
  };
  const cpu = within(CPU_METRIC);
  const mem = within(MEMORY_METRIC);
  const coresUsed = cpu.length > 0 ? cpu.reduce((a, b) => a + b, 0) / cpu.length : null;
  const busy = coresUsed !== null && coresUsed > 0 ? coresUsed : null;
  return {
    level: metrics.level,
    source: metrics.source,
    cores_used: coresUsed,
    cores_available: metrics.cores_available,
    peak_memory_bytes: mem.length > 0 ? Math.max(...mem) : null,
    qps_per_core: busy !== null && point ? point.qps / busy : null,
    // As stored: cores × the window's seconds is the CPU time spent, over the requests it served.
    cpu_seconds_per_1k: coresUsed !== null && point && point.requests > 0 ? ((coresUsed * point.window_s) / point.requests) * 1000 : null,
    seconds: cpu.length,
    notes: metrics.notes,
  };
}

/** Every level's cost, in level order, and the verdict on the knee. */
export function runCost(input: CostInput): RunCost {
  const byLevel = <T extends { level: number }>(xs: readonly T[]) => new Map(xs.map((x) => [x.level, x]));
  const steps = byLevel(input.steps);
  const points = byLevel(input.curve);
  const costs = [...input.metrics]
    .sort((a, b) => a.level - b.level)
    .map((m) => levelCost(m, steps.get(m.level), points.get(m.level)));
  // Per-core efficiency: each level's QPS per core against the lowest level's (1 = no core wasted as load grows).
  const base = costs.find((c) => c.qps_per_core !== null)?.qps_per_core ?? null;
  const levels: LevelCost[] = costs.map((c) => ({ ...c, efficiency_per_core: base !== null && c.qps_per_core !== null ? c.qps_per_core / base : null }));
  const scaling = scalingSentence(
    levels.map((l) => ({ level: l.level, qps: points.get(l.level)?.qps ?? null, cores_used: l.cores_used })),
    input.parameter,
  );
  return { levels, verdict: costVerdict(levels, input.knee, input.parameter), scaling };
}

/**
 * The knee, read against the CPU: saturated (CPU-bound) when the cores used there reach
 * CPU_SATURATED_SHARE of the cores available; otherwise something else stops it. Without a known
 * core count it states the cores busy and nothing more.
 */
export function costVerdict(levels: readonly LevelCost[], knee: number | null, parameter: string): string | null {
  if (knee === null) return null;
  const at = levels.find((l) => l.level === knee);
  if (!at || at.cores_used === null) return null;
  const where = `saturates at ${parameter === 'concurrency' ? '' : `${parameter} `}${formatLevel(knee)}`;
  const used = formatCoresUsed(at.cores_used);
  if (at.cores_available === null) return `${where} with ${used} cores busy (cores available unknown: pass --cores to judge)`;
  const of = `${used} of ${formatCoresUsed(at.cores_available)} cores busy`;
  return at.cores_used >= CPU_SATURATED_SHARE * at.cores_available ? `${where} with ${of}: CPU-bound` : `${where} with ${of}: not CPU — look for a lock, a pool or I/O`;
}

/** The cost per level as a Markdown table (for a review or a pull request), the verdict and the scaling sentence above it; every figure through contracts' figures. */
export function costMarkdown(cost: Omit<RunCost, 'scaling'> & { scaling?: string | null }, parameter: string): string {
  if (cost.levels.length === 0) return `${NO_SERVER_METRICS}.\n`;
  const lines = [
    ...(cost.verdict ? [`**${escapeMarkdownText(cost.verdict)}**`, ''] : []),
    ...(cost.scaling ? [escapeMarkdownText(cost.scaling), ''] : []),
    `| ${escapeMarkdownText(parameter)} | cores used | peak memory | req/s per core | CPU-s per 1,000 req | efficiency per core |`,
    '|---:|---:|---:|---:|---:|---:|',
    ...cost.levels.map((l) => {
      const cores = l.cores_available === null ? formatCoresUsed(l.cores_used) : `${formatCoresUsed(l.cores_used)} of ${formatCoresUsed(l.cores_available)}`;
      return `| ${formatLevel(l.level)} | ${cores} | ${formatBytes(l.peak_memory_bytes)} | ${formatQps(l.qps_per_core)} | ${formatSignificant(l.cpu_seconds_per_1k)} | ${formatPercent(l.efficiency_per_core)} |`;
    }),
  ];
  const notes = cost.levels.flatMap((l) => l.notes.map((n) => `- ${escapeMarkdownText(parameter)} ${formatLevel(l.level)}: ${escapeMarkdownText(n)}`));
  return `${[...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n')}\n`;
}
