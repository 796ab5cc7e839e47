/**
 * What the server spent during one window (a step's measured window), from a series of scrapes:
 * each selector's value, the gaps where it had no samples (named, with the reason when a scrape
 * failed), and the counter resets it saw. Pure: no clock, no I/O.
 */
import type { Sample } from './exposition.ts';
import { matches, parseSelectors, type Selector } from './selector.ts';

/** One scrape: the samples read at `atMs`, or why it failed (unreachable, HTTP 500, timeout…). */
export type Scrape = { atMs: number; samples: readonly Sample[] } | { atMs: number; error: string };

export interface Window {
  startMs: number;
  endMs: number;
}

export interface Gap {
  alias: string;
  /** The last sample before the gap, or the window's start. */
  fromMs: number;
  /** The first sample after the gap, or the window's end. */
  toMs: number;
  /** Why scrapes inside the gap gave nothing (distinct reasons, in order); empty when none was made. */
  reasons: string[];
}

export interface CounterReset {
  alias: string;
  atMs: number;
  labels: Record<string, string>;
}

export interface SelectorValue {
  alias: string;
  selector: Selector;
  /**
   * rate: the summed per-second increase across matching series (CPU-seconds → cores used);
   * mean / max: of the per-scrape sum across matching series. null when there were too few samples
   * (rate needs two of one series in the window, a gauge one).
   */
  value: number | null;
  /** Scrapes in the window where the selector found at least one sample. */
  points: number;
  gaps: Gap[];
  resets: CounterReset[];
}

export interface WindowCost {
  window: Window;
  values: Record<string, SelectorValue>;
  /** Every gap and reset as a sentence, for the step's notes ("cpu: no samples between …"). */
  messages: string[];
}

export interface WindowOptions {
  /** The scrape interval the source was asked for; a gap is a stretch longer than 1.5 × this. Default 1000. */
  intervalMs?: number;
}

export const DEFAULT_INTERVAL_MS = 1000;

/**
 * Evaluates the selectors over the scrapes whose time falls inside the window (both ends included).
 * With no selectors given, the defaults: `cpu` (cores used, mean over the window) and `mem` (peak bytes).
 */
export function measureWindow(scrapes: readonly Scrape[], window: Window, selectors: readonly Selector[] = parseSelectors([]), options: WindowOptions = {}): WindowCost {
  const values: Record<string, SelectorValue> = {};
  const messages: string[] = [];
  for (const selector of selectors) {
    const v = evaluateSelector(selector, scrapes, window, options);
    values[selector.alias] = v;
    messages.push(...v.gaps.map(describeGap), ...v.resets.map(describeReset));
  }
  return { window, values, messages };
}

export function evaluateSelector(selector: Selector, scrapes: readonly Scrape[], window: Window, options: WindowOptions = {}): SelectorValue {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const inWindow = scrapes.filter((s) => s.atMs >= window.startMs && s.atMs <= window.endMs).sort((a, b) => a.atMs - b.atMs);

  // Per scrape: the matching samples, or why there are none.
  const pointTimes: number[] = [];
  const misses: Array<{ atMs: number; reason: string }> = [];
  const series = new Map<string, { labels: Record<string, string>; points: Array<{ t: number; v: number }> }>();
  const gaugeSums: number[] = [];
  for (const scrape of inWindow) {
    if ('error' in scrape) {
      misses.push({ atMs: scrape.atMs, reason: scrape.error });
      continue;
    }
    const hits = scrape.samples.filter((s) => matches(selector, s.name, s.labels) && !Number.isNaN(s.value));
    if (hits.length === 0) {
      misses.push({ atMs: scrape.atMs, reason: `no series matches ${selectorBody(selector)}` });
      continue;
    }
    pointTimes.push(scrape.atMs);
    if (selector.fn === 'rate') {
      for (const s of hits) {
        const key = seriesKey(s.labels);
        let entry = series.get(key);
        if (!entry) series.set(key, (entry = { labels: s.labels, points: [] }));
        entry.points.push({ t: s.timestampMs ?? scrape.atMs, v: s.value });
      }
    } else {
      gaugeSums.push(hits.reduce((sum, s) => sum + s.value, 0));
    }
  }

  const resets: CounterReset[] = [];
  let value: number | null = null;
  if (selector.fn === 'rate') {
    for (const { labels, points } of series.values()) {
      const r = counterRate(points);
      if (r === null) continue;
      value = (value ?? 0) + r.rate;
      for (const atMs of r.resetsAt) resets.push({ alias: selector.alias, atMs, labels });
    }
  } else if (gaugeSums.length > 0) {
    value = selector.fn === 'max' ? Math.max(...gaugeSums) : gaugeSums.reduce((a, b) => a + b, 0) / gaugeSums.length;
  }

  return { alias: selector.alias, selector, value, points: pointTimes.length, gaps: findGaps(selector.alias, pointTimes, misses, window, intervalMs), resets };
}

/**
 * A counter's increase per second over its points (time-ordered). A value below the previous one
 * means the counter restarted from 0 (a process restart), so that step's increase is the new value.
 * Samples that share a timestamp (an exposition timestamp that did not move) are read once.
 */
export function counterRate(points: ReadonlyArray<{ t: number; v: number }>): { rate: number; increase: number; resetsAt: number[] } | null {
  const sorted = [...points].sort((a, b) => a.t - b.t);
  let increase = 0;
  const resetsAt: number[] = [];
  let prev = sorted[0];
  if (prev === undefined) return null;
  const first = prev;
  for (const p of sorted.slice(1)) {
    if (p.t === prev.t) continue;
    if (p.v < prev.v) {
      increase += p.v;
      resetsAt.push(p.t);
    } else {
      increase += p.v - prev.v;
    }
    prev = p;
  }
  const span = prev.t - first.t;
  if (span <= 0) return null;
  return { rate: (increase * 1000) / span, increase, resetsAt };
}

function findGaps(alias: string, pointTimes: number[], misses: Array<{ atMs: number; reason: string }>, window: Window, intervalMs: number): Gap[] {
  const limit = 1.5 * intervalMs;
  const edges = [window.startMs, ...pointTimes, window.endMs];
  const gaps: Gap[] = [];
  for (let i = 1; i < edges.length; i += 1) {
    const from = edges[i - 1]!;
    const to = edges[i]!;
    if (to - from <= limit) continue;
    const reasons = [...new Set(misses.filter((m) => m.atMs >= from && m.atMs <= to).map((m) => m.reason))];
    gaps.push({ alias, fromMs: from, toMs: to, reasons });
  }
  return gaps;
}

/** "cpu: no samples between 12:00:03 and 12:00:05 (connect ECONNREFUSED 127.0.0.1:9100)" — times in UTC. */
export function describeGap(gap: Gap): string {
  const why = gap.reasons.length > 0 ? ` (${gap.reasons.join('; ')})` : '';
  return `${gap.alias}: no samples between ${clock(gap.fromMs)} and ${clock(gap.toMs)}${why}`;
}

export function describeReset(reset: CounterReset): string {
  const labels = Object.entries(reset.labels);
  const series = labels.length > 0 ? ` {${labels.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}` : '';
  return `${reset.alias}: counter reset at ${clock(reset.atMs)}${series} (counted as a restart from 0)`;
}

/** HH:MM:SS in UTC, the form step windows are shown in. */
export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function selectorBody(s: Selector): string {
  const m = s.matchers.map((x) => `${x.label}${x.op}${JSON.stringify(x.value)}`).join(',');
  return m === '' ? s.metric : `${s.metric}{${m}}`;
}
