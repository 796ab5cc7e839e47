/**
 * Prepare capacity under an SLO for the run page: which SLOs apply (the URL's, else the run's own
 * `slo` tag), the threshold lines the latency chart draws, and the capacity line, marker and the
 * levels named as unclear or skipped. The capacity itself comes from the API (`capacity` on the
 * analysis or a live snapshot); this only decides what can be drawn and how it reads.
 */
import { Capacity, formatSlos, parseSlos, type Run, type SloClause } from '@kneeboard/contracts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { capacityHeadline, capacityLabel, sloLines, type ScaleKind } from '@kneeboard/chart-prep';
import { LATENCY_SERIES, type LatencyKey } from './series.ts';
import { SLO_NONE, type SloSetting } from './view-state.ts';

export interface ActiveSlo {
  /** Canonical clauses (`p99<=50ms,errors<=1%`), as `slo=` and the API read them. */
  text: string;
  clauses: SloClause[];
  /** `url`: the reader's choice; `tag`: the run's own `slo` tag (set by `kneeboard sweep --slo`). */
  source: 'url' | 'tag';
}

/** The run's `slo` tag as clauses, or null when it has none or it does not parse. */
export function runSloTag(run: Pick<Run, 'tags'>): string | null {
  const tag = run.tags.slo;
  if (!tag) return null;
  const parsed = parseSlos(tag);
  return parsed.ok ? formatSlos(parsed.clauses) : null;
}

/** The SLOs the page judges by: the URL's, SLO_NONE for none, or (null) the run's tag. */
export function activeSlo(setting: SloSetting, run: Pick<Run, 'tags'>): ActiveSlo | null {
  if (setting === SLO_NONE) return null;
  const text = setting ?? runSloTag(run);
  if (text === null) return null;
  const parsed = parseSlos(text);
  return parsed.ok ? { text: formatSlos(parsed.clauses), clauses: parsed.clauses, source: setting === null ? 'tag' : 'url' } : null;
}

export interface SloThreshold {
  key: LatencyKey;
  ms: number;
  /** `p99 ≤ 50 ms`, drawn at the line's right end. */
  label: string;
  colour: string;
  /** The clause's canonical text, for tests and titles. */
  slo: string;
}

/** A horizontal line per latency clause the latency chart has a series for, in that series' colour. */
export function sloThresholds(slo: ActiveSlo | null, yScale: ScaleKind): SloThreshold[] {
  if (slo === null) return [];
  return sloLines(slo.clauses).flatMap((line): SloThreshold[] => {
    const series = LATENCY_SERIES.find((s) => s.key === line.key);
    if (!series || (yScale === 'log' && !(line.ms > 0))) return [];
    return [{ ...line, colour: series.color }];
  });
}

export interface CapacityMarkerSpec {
  /** The highest level that holds, and its QPS. */
  level: number;
  qps: number;
  /** `capacity · 1,840 req/s` */
  label: string;
  /** Shaded from the level that holds to the first that breaks; null when none broke. */
  bracket: { from: number; to: number } | null;
  title: string;
}

export interface CapacityView {
  /** `Capacity under p99<=50ms: 1,840 req/s at concurrency 24 (bracket 24–32, crossing ≈ 27)` */
  headline: string;
  /** Whether any level holds (a capacity to mark). */
  found: boolean;
  /** `Unclear (the interval straddles the threshold; not counted): concurrency 8, 16`; null when none. */
  unclear: string | null;
  /** Each skipped level and why: never evidence either way. */
  skipped: Array<{ level: number; text: string }>;
  /** The analysis' own sentence and warnings, for the reader who checks it. */
  summary: string;
  warnings: string[];
  marker: CapacityMarkerSpec | null;
}

const at = (parameter: string, level: number) => `${parameter} ${formatLevel(level)}`;

/**
 * The capacity as the page states it, or null while none has arrived for the SLOs shown (a
 * capacity for other SLOs — an older answer — is never shown under the new ones). The marker is
 * left out when the level axis cannot place it (outside the levels shown, or ≤ 0 on a log axis).
 */
export function capacityView(capacity: Capacity | null, slo: ActiveSlo | null, parameter: string, xDomain: readonly [number, number], xScale: ScaleKind): CapacityView | null {
  if (capacity === null || slo === null || capacity.slos.join(',') !== slo.text) return null;
  const { bracket } = capacity;
  const headline = capacityHeadline(capacity, parameter);
  const inDomain = (l: number) => l >= xDomain[0] && l <= xDomain[1] && (xScale !== 'log' || l > 0);
  const marker: CapacityMarkerSpec | null =
    capacity.level !== null && capacity.qps !== null && inDomain(capacity.level)
      ? {
          level: capacity.level,
          qps: capacity.qps,
          label: capacityLabel(capacity.qps),
          bracket: bracket.breaks ? { from: capacity.level, to: Math.min(bracket.breaks.level, xDomain[1]) } : null,
          title: capacity.summary,
        }
      : null;
  return {
    headline,
    found: capacity.level !== null,
    unclear:
      capacity.unclear_levels.length === 0
        ? null
        : `Unclear (the interval straddles a threshold, or too few requests; not counted): ${at(parameter, capacity.unclear_levels[0] as number)}${capacity.unclear_levels
            .slice(1)
            .map((l) => `, ${formatLevel(l)}`)
            .join('')}`,
    skipped: capacity.skipped_levels.map((s) => ({ level: s.level, text: `${at(parameter, s.level)}: ${s.reason}` })),
    summary: capacity.summary,
    warnings: capacity.warnings,
    marker,
  };
}

/** A live snapshot's `capacity`, when it carries one that reads (the stream adds it with `slo=`). */
export function snapshotCapacity(value: unknown): Capacity | null {
  if (typeof value !== 'object' || value === null || !('capacity' in value)) return null;
  const parsed = Capacity.safeParse((value as { capacity: unknown }).capacity);
  return parsed.success ? parsed.data : null;
}

/**
 * What the SLO field's text sets, on the run page and the comparison alike: the contracts' parser (its
 * message names the clause it refuses), canonical clauses, back to the run's tag (null) when the
 * text is the tag, and SLO_NONE when emptied where a tag would otherwise apply.
 */
export function readSloField(text: string, tag: string | null): { ok: true; setting: SloSetting; canonical: string } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, setting: tag === null ? null : SLO_NONE, canonical: '' };
  const parsed = parseSlos(text);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const canonical = formatSlos(parsed.clauses);
  return { ok: true, setting: canonical === tag ? null : canonical, canonical };
}
