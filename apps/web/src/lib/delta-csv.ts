/**
 * The comparison's level-by-level deltas as CSV, made in the browser from the same report the
 * tables show: one row per head and level, each metric's base, head, change and 95% interval as
 * numbers (the change and its interval in percent: 21.3 = +21.3%), and its verdict. Cells follow the product's one CSV
 * rule (csvCell: no formula a spreadsheet would run, whatever a run's name says).
 */
import { csvText, levelSelectionContains, type CompareResponse, type FigureChange, type LevelSelection, type MetricDelta } from '@kneeboard/contracts';

const METRICS = [
  ['qps', 'qps'],
  ['p50_ms', 'p50_ms'],
  ['p99_ms', 'p99_ms'],
] as const;

const PARTS = ['base', 'head', 'change_pct', 'ci_low_pct', 'ci_high_pct', 'verdict'] as const;
const pct = (v: number | null) => (v === null ? null : v * 100);
const coresCells = (c: FigureChange | null) => (c === null ? [null, null, null, null, null] : [c.base, c.head, pct(c.change), pct(c.ci_low), pct(c.ci_high)]);

/** CPU cores used per level where both sides read server metrics: added only when some head has them, so other comparisons' CSV is as before. */
const COST_PARTS = ['base', 'head', 'change_pct', 'ci_low_pct', 'ci_high_pct'] as const;

export function deltaCsv(report: Pick<CompareResponse, 'heads' | 'base'>, parameter: string, levels: LevelSelection | null = null): string {
  const withCost = report.heads.some((h) => h.cost && h.cost.levels.length > 0);
  const header = [
    'base_release',
    'base_run',
    'head_release',
    'head_run',
    parameter,
    'only_in',
    'flags',
    ...METRICS.flatMap(([name]) => PARTS.map((p) => `${name}_${p}`)),
    ...(withCost ? COST_PARTS.map((p) => `cores_used_${p}`) : []),
  ];
  const rows = report.heads.flatMap((h) =>
    h.levels
      .filter((l) => levelSelectionContains(levels, l.level))
      .map((l) => [
        report.base.release,
        report.base.name || report.base.id,
        h.run.release,
        h.run.name || h.run.id,
        l.level,
        l.in_base && !l.in_head ? 'base' : !l.in_base && l.in_head ? 'head' : null,
        l.flags.map((f) => `${f.side}: ${f.reason}`).join(' | ') || null,
        ...METRICS.flatMap(([, key]) => {
          const d: MetricDelta = l[key];
          return [d.base, d.head, pct(d.change), pct(d.ci_low), pct(d.ci_high), d.verdict];
        }),
        ...(withCost ? coresCells(h.cost?.levels.find((c) => c.level === l.level)?.cores_used ?? null) : []),
      ]),
  );
  return csvText([header, ...rows]);
}
