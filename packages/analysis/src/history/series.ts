import type { LoadModel, RunStatus } from '@kneeboard/contracts';

/**
 * What the history needs of a run to decide what it can be compared with. `target`, `request`,
 * `slo` and `search` are read from the run's tags of those names when not given (the API may know
 * them better, e.g. from the sweep's configuration).
 */
export interface HistoryRun {
  id: string;
  release: string;
  created_at: number;
  status: RunStatus;
  load_model: LoadModel;
  parameter: string;
  tags: Readonly<Record<string, string>>;
  labels?: readonly string[];
  /** The levels the run measured (finished steps). */
  levels: readonly number[];
  target?: string | null;
  request?: string | null;
  slo?: string | null;
  /** Levels chosen by a capacity search rather than a fixed grid. */
  search?: boolean;
}

export interface ComparableSeries {
  /** Stable identity of the series: equal for runs that can be compared. */
  key: string;
  /** How a reader sees it: the label's name when forced, else what the runs share. */
  name: string;
  load_model: LoadModel;
  parameter: string;
  /** The level grid; null for a search (each run picks its own levels). */
  grid: number[] | null;
  search: boolean;
  target: string | null;
  request: string | null;
  slo: string | null;
  /** The label (`series=NAME`) that forced this grouping, or null when it is automatic. */
  forced_by: string | null;
  /** Run ids, oldest first. */
  runs: string[];
  /** Aborted runs of the series (part of its grid at most): shown, never in its statistics. */
  partial: string[];
}

/** A run label or tag `series=NAME` puts the run in the series NAME, whatever else it says. */
export const SERIES_LABEL = 'series';

function forcedName(run: HistoryRun): string | null {
  const prefix = `${SERIES_LABEL}=`;
  const label = run.labels?.find((l) => l.startsWith(prefix) && l.length > prefix.length);
  if (label) return label.slice(prefix.length).trim();
  const tag = run.tags[SERIES_LABEL]?.trim();
  return tag ? tag : null;
}

const text = (given: string | null | undefined, tag: string | undefined): string | null => {
  const value = (given ?? tag ?? '').trim();
  return value === '' ? null : value;
};

/** Clauses in one spelling and order, so `p99<=50ms, errors<=1%` and `errors<=1%,p99<=50ms` are one SLO. */
function canonicalSlo(slo: string | null): string | null {
  if (slo === null) return null;
  return slo
    .split(',')
    .map((c) => c.replace(/\s+/g, '').toLowerCase())
    .filter((c) => c !== '')
    .sort()
    .join(',');
}

const isSearch = (run: HistoryRun) => run.search ?? ['1', 'true', 'yes'].includes((run.tags.search ?? '').toLowerCase());
const gridOf = (levels: readonly number[]) => [...new Set(levels)].sort((a, b) => a - b);

interface Identity {
  load_model: LoadModel;
  parameter: string;
  search: boolean;
  target: string | null;
  request: string | null;
  slo: string | null;
  forced_by: string | null;
}

function identity(run: HistoryRun): Identity {
  return {
    load_model: run.load_model,
    parameter: run.parameter,
    search: isSearch(run),
    target: text(run.target, run.tags.target),
    request: text(run.request, run.tags.request),
    slo: canonicalSlo(text(run.slo, run.tags.slo)),
    forced_by: forcedName(run),
  };
}

/**
 * The load model and the swept parameter are never overridden: an offered rate and a concurrency
 * are different axes, and a label cannot make their knees comparable.
 */
function keyOf(id: Identity, grid: number[] | null): string {
  const axis = `${id.load_model}|${id.parameter}`;
  if (id.forced_by !== null) return `${axis}|series=${id.forced_by}`;
  return [axis, id.search ? 'search' : `grid=${(grid ?? []).join(',')}`, `target=${id.target ?? ''}`, `request=${id.request ?? ''}`, `slo=${id.slo ?? ''}`].join('|');
}

function describe(id: Identity, grid: number[] | null): string {
  if (id.forced_by !== null) return id.forced_by;
  const parts = [`${id.load_model} loop`, id.search ? `${id.parameter} search` : `${id.parameter} ${grid && grid.length ? `${grid[0]}–${grid[grid.length - 1]} (${grid.length} levels)` : '(no levels)'}`];
  if (id.target) parts.push(id.target);
  if (id.request) parts.push(id.request);
  if (id.slo) parts.push(`SLO ${id.slo}`);
  return parts.join(', ');
}

/**
 * Comparable series of a service's runs. Runs still running are left out. An aborted run whose levels are
 * part of a series' grid joins the series with the most levels that
 * contains them, as partial; a finished run with a grid of its own starts its own series.
 */
export function groupSeries(runs: readonly HistoryRun[]): ComparableSeries[] {
  const done = runs.filter((r) => r.status !== 'running').sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
  const series = new Map<string, ComparableSeries>();
  const pending: { run: HistoryRun; id: Identity; grid: number[] }[] = [];
  for (const run of done) {
    const id = identity(run);
    const grid = gridOf(run.levels);
    if (run.status === 'aborted' && !id.search && id.forced_by === null) {
      pending.push({ run, id, grid });
      continue;
    }
    const seriesGrid = id.search || id.forced_by !== null ? null : grid;
    const key = keyOf(id, seriesGrid);
    const s = series.get(key) ?? { key, name: describe(id, seriesGrid), ...id, grid: seriesGrid, runs: [], partial: [] };
    s.runs.push(run.id);
    if (run.status === 'aborted') s.partial.push(run.id);
    series.set(key, s);
  }
  for (const { run, id, grid } of pending) {
    const home = [...series.values()]
      .filter((s) => s.grid !== null && s.forced_by === null && keyOf(id, s.grid) === s.key && grid.every((l) => s.grid!.includes(l)))
      .sort((a, b) => b.grid!.length - a.grid!.length)[0];
    const s = home ?? { key: keyOf(id, grid), name: describe(id, grid), ...id, grid, runs: [], partial: [] };
    s.runs.push(run.id);
    s.partial.push(run.id);
    series.set(s.key, s);
  }
  const order = new Map(done.map((r, i) => [r.id, i]));
  for (const s of series.values()) s.runs.sort((a, b) => order.get(a)! - order.get(b)!);
  return [...series.values()];
}
