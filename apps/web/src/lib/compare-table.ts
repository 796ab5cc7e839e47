/**
 * Prepare the comparison's statistics for reading: one verdict banner per head run and a per-level
 * table of changes with their intervals. The numbers and verdicts are the API's (`CompareResponse`,
 * bootstrap intervals over raw samples); this only turns them into text and a tone.
 */
import { levelSelectionContains, type ChangeVerdict, type HeadComparison, type LevelSelection, type MetricDelta } from '@kneeboard/contracts';
import { formatChange, formatChangeInterval, formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';

/** How a verdict reads: red, green, plain, faint, or amber for a level the agent limited. */
export type Tone = 'regression' | 'improvement' | 'same' | 'unknown' | 'flagged';

export function toneOf(verdict: ChangeVerdict): Tone {
  if (verdict === 'regression') return 'regression';
  if (verdict === 'improvement') return 'improvement';
  if (verdict === 'not comparable') return 'flagged';
  return verdict === 'no significant change' ? 'same' : 'unknown';
}

type Metric = 'qps' | 'p50_ms' | 'p99_ms';

const METRIC_TEXT: Record<Metric, { label: string; unit: string; value: (x: number | null) => string }> = {
  qps: { label: 'QPS', unit: 'req/s', value: formatQps },
  p50_ms: { label: 'p50', unit: 'ms', value: formatMs },
  p99_ms: { label: 'p99', unit: 'ms', value: formatMs },
};

export interface DeltaCell {
  /** `99,400 → 120,797` */
  values: string;
  /** `+21%`; null when a side is missing. */
  change: string | null;
  /** `+19%…+24%`; null without an interval. */
  interval: string | null;
  verdict: ChangeVerdict;
  tone: Tone;
  /** The whole cell as a sentence, for hover and screen readers. */
  title: string;
}

export function deltaCell(d: MetricDelta, metric: Metric): DeltaCell {
  const m = METRIC_TEXT[metric];
  const values = `${m.value(d.base)} → ${m.value(d.head)}`;
  const change = d.change === null ? null : formatChange(d.change);
  const interval = d.ci_low === null || d.ci_high === null ? null : formatChangeInterval(d.ci_low, d.ci_high);
  const parts = [`${m.label} ${values} ${m.unit}`];
  if (change) parts.push(`change ${change}`);
  if (interval) parts.push(`95% interval ${interval}`);
  return { values, change, interval, verdict: d.verdict, tone: toneOf(d.verdict), title: `${parts.join(', ')}: ${d.verdict}` };
}

export interface DeltaRow {
  level: number;
  /** Only one run swept this level: there is nothing to compare there. */
  only: 'base' | 'head' | null;
  /** Why this level is not comparable, one line per flagged run ("head: the agent flagged …"); empty when it is. */
  flags: string[];
  /** Which sides were flagged, for the short mark in the row (the reasons go under the table). */
  flagSides: Array<'base' | 'head'>;
  qps: DeltaCell;
  p50: DeltaCell;
  p99: DeltaCell;
}

/** One row per level inside the selection, in the API's (ascending) order. */
export function deltaRows(head: HeadComparison, levels: LevelSelection | null): DeltaRow[] {
  return head.levels
    .filter((l) => levelSelectionContains(levels, l.level))
    .map((l) => ({
      level: l.level,
      only: l.in_base && !l.in_head ? 'base' : !l.in_base && l.in_head ? 'head' : null,
      flags: l.flags.map((f) => `${f.side}: ${f.reason}`),
      flagSides: [...new Set(l.flags.map((f) => f.side))],
      qps: deltaCell(l.qps, 'qps'),
      p50: deltaCell(l.p50_ms, 'p50_ms'),
      p99: deltaCell(l.p99_ms, 'p99_ms'),
    }));
}

export interface VerdictStat {
  label: string;
  /** The headline: `+31%`, `50 → 500`. */
  value: string;
  /** What it is made of: `99,400 → 131,043 req/s · 95% +29%…+33%`. */
  detail: string;
  tone: Tone;
}

export interface VerdictSummary {
  verdict: ChangeVerdict;
  tone: Tone;
  /** The API's one sentence for a pull request. */
  summary: string;
  stats: VerdictStat[];
  /**
   * What the intervals can see (repeats, history, or only the noise within each run), how they were
   * made (`method`: runs a side, the spread and its degrees of freedom), and a newer noise basis
   * than the one pinned, offered (never used unasked).
   */
  noise: {
    basis: HeadComparison['noise']['basis'];
    note: string;
    baseRuns: number;
    headRuns: number;
    interval: string;
    method?: string;
    newer?: { runs: number; asof: number };
  };
  /** Levels where an agent was the limit: they get no verdict. */
  notComparable: number[];
}

function statFrom(label: string, d: MetricDelta, metric: Metric): VerdictStat {
  const cell = deltaCell(d, metric);
  const detail = [`${cell.values} ${METRIC_TEXT[metric].unit}`, cell.interval ? `95% ${cell.interval}` : null].filter(Boolean).join(' · ');
  return { label, value: cell.change ?? '—', detail, tone: cell.tone };
}

/** The head's overall verdict: peak throughput, knee shift, and p99 where the base's knee was. */
export function verdictSummary(head: HeadComparison, parameter: string): VerdictSummary {
  const o = head.overall;
  const max = statFrom('max QPS', o.max_qps, 'qps');
  const at = (l: number | null) => (l === null ? '' : ` at ${formatLevel(l)}`);
  max.detail = `${formatQps(o.max_qps.base)}${at(o.max_qps.base_level)} → ${formatQps(o.max_qps.head)}${at(o.max_qps.head_level)} req/s${
    o.max_qps.ci_low !== null && o.max_qps.ci_high !== null ? ` · 95% ${formatChangeInterval(o.max_qps.ci_low, o.max_qps.ci_high)}` : ''
  }`;

  const { base: kb, head: kh, change, base_bracket: bb, head_bracket: hb, within_grid: withinGrid } = o.knee;
  const bracket = (b: typeof bb) => (b && b.high / b.low > 1.25 ? `, somewhere between ${formatLevel(b.low)} and ${formatLevel(b.high)} on this grid` : '');
  const knee: VerdictStat =
    kb === null && kh === null
      ? { label: 'knee', value: 'none', detail: 'neither run has a knee', tone: 'unknown' }
      : kb !== null && kh !== null && (kb === kh || withinGrid)
        ? {
            label: 'knee',
            value: kb === kh ? `${formatLevel(kb)}` : `${formatLevel(kb)} → ${formatLevel(kh)}`,
            detail:
              kb === kh
                ? `unchanged at ${parameter} ${formatLevel(kb)}${bracket(bb)}`
                : `within the grid: the levels swept cannot tell ${parameter} ${formatLevel(kb)} from ${formatLevel(kh)}`,
            tone: 'same',
          }
        : {
            label: 'knee',
            value: `${kb === null ? '—' : formatLevel(kb)} → ${kh === null ? '—' : formatLevel(kh)}`,
            detail: change === null ? `${parameter}; one run has no knee` : `${parameter} ${formatChange(change)}${bracket(hb)}`,
            tone: change === null ? 'unknown' : change > 0 ? 'improvement' : 'regression',
          };

  const p99Level = o.p99_at_base_knee.level;
  const p99 = statFrom(p99Level === null ? 'p99 at base knee' : `p99 at ${parameter} ${formatLevel(p99Level)}`, o.p99_at_base_knee, 'p99_ms');
  if (p99Level === null) Object.assign(p99, { value: '—', detail: 'the base run has no knee', tone: 'unknown' });

  const notComparable = head.levels.filter((l) => l.flags.length > 0).map((l) => l.level);
  const noise = {
    basis: head.noise.basis,
    note: head.noise.note,
    baseRuns: head.noise.base_runs,
    headRuns: head.noise.head_runs,
    interval: intervalKind(head.noise),
    ...(head.noise.method ? { method: head.noise.method } : {}),
    ...(head.noise.newer ? { newer: head.noise.newer } : {}),
  };
  return { verdict: o.verdict, tone: toneOf(o.verdict), summary: o.summary, stats: [max, knee, p99], noise, notComparable };
}

const runs = (n: number) => (n === 1 ? '1 run' : `${n} runs`);

/**
 * The group sizes and what kind of interval they give, in one line: groups of repeats give a
 * between-run interval; one run a side can only borrow earlier repeats' spread, or, without any,
 * cannot tell a change from run-to-run noise.
 */
export function intervalKind(noise: HeadComparison['noise']): string {
  const sizes = `base ${runs(noise.base_runs)} · head ${runs(noise.head_runs)}`;
  if (noise.basis === 'repeats') return `${sizes}: between-run intervals (the run-to-run spread of these runs, pooled across levels, on the log scale)`;
  if (noise.basis === 'history') return `${sizes}: within-run intervals widened by the run-to-run spread of earlier repeats of this service`;
  return `${sizes}: within-run intervals only, which cannot separate a change from run-to-run noise`;
}
