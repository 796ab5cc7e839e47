/**
 * The run page's endpoint choice and summary, from the run detail's `names` and `endpoints`
 * (the API's analyzeEndpoints): pure, so the order, shares and flags are tested without a browser.
 */
import type { EndpointAnalysis, RunNameCount } from '@kneeboard/contracts';
import { formatLevel, formatMs, formatPercent } from '@kneeboard/contracts/figures';
import { markdownText } from './chart-export.ts';
import { formatCount } from './format.ts';

/** The summary table's rows: the busiest endpoints, as many as stay readable next to the charts. */
export const MAX_ENDPOINT_ROWS = 12;

export interface EndpointOption {
  name: string;
  requests: number;
  /** Of all named requests, 0..1. */
  share: number;
}

/** Busiest first (ties by name, so the order never shifts between renders), each with its share of the run's named requests. */
export function endpointOptions(names: ReadonlyArray<RunNameCount>): EndpointOption[] {
  const total = names.reduce((n, c) => n + c.requests, 0);
  return [...names]
    .sort((a, b) => b.requests - a.requests || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((c) => ({ name: c.name, requests: c.requests, share: total > 0 ? c.requests / total : 0 }));
}

export interface EndpointRow extends EndpointOption {
  /** Where this endpoint's own curve bends; null: no knee in the levels swept. */
  kneeLevel: number | null;
  /** Its p99 at the level the endpoints are compared at. */
  p99Ms: number | null;
  saturatesFirst: boolean;
  dominatesP99: boolean;
}

export interface EndpointsSummaryView {
  rows: EndpointRow[];
  /** Analysed endpoints left out of `rows` (the quieter ones). */
  more: number;
  /** The level the p99 column is read at, and whether it is the run's knee (else its highest level). */
  level: number | null;
  levelIsKnee: boolean;
  saturatesFirst: string | null;
  dominatesP99: string | null;
  summary: string;
}

/** The busiest analysed endpoints, with the two the analysis names flagged. */
export function endpointsSummary(analysis: EndpointAnalysis, names: ReadonlyArray<RunNameCount>): EndpointsSummaryView {
  const byName = new Map(analysis.endpoints.map((e) => [e.name, e]));
  const analysed = endpointOptions(names).filter((o) => byName.has(o.name));
  const rows = analysed.slice(0, MAX_ENDPOINT_ROWS).map((o): EndpointRow => {
    const e = byName.get(o.name)!;
    return { ...o, kneeLevel: e.knee_level, p99Ms: e.p99_ms, saturatesFirst: o.name === analysis.saturates_first, dominatesP99: o.name === analysis.dominates_p99 };
  });
  return {
    rows,
    more: analysed.length - rows.length,
    level: analysis.level,
    levelIsKnee: analysis.level_is_knee,
    saturatesFirst: analysis.saturates_first,
    dominatesP99: analysis.dominates_p99,
    summary: analysis.summary,
  };
}

/**
 * The run's Endpoints section for its Markdown export (the Export menu's embed): the analysis'
 * sentence on which endpoint gives out first and which dominates p99, then the summary table's
 * rows — each name's requests, own knee and p99 at the level they are compared at. Names are the
 * user's text, escaped so a `|` or `*` in one cannot break the table. Null without names, so a run
 * without them exports exactly what it did.
 */
export function endpointsMarkdown(view: EndpointsSummaryView | null, parameter: string): string | null {
  if (view === null || view.rows.length === 0) return null;
  const at = view.level === null ? '' : ` at ${parameter} ${formatLevel(view.level)}${view.levelIsKnee ? ', the run’s knee' : ', the highest level'}`;
  const flags = (r: EndpointRow) => [...(r.saturatesFirst ? ['saturates first'] : []), ...(r.dominatesP99 ? ['dominates p99'] : [])];
  const rows = view.rows.map((r) => `| ${[markdownText(r.name), ...flags(r)].join(' · ')} | ${formatCount(r.requests)} (${formatPercent(r.share)}) | ${r.kneeLevel === null ? 'none' : formatLevel(r.kneeLevel)} | ${formatMs(r.p99Ms)} |`);
  const more = view.more > 0 ? [`\nand ${view.more} quieter endpoint${view.more === 1 ? '' : 's'}.`] : [];
  return [`**Endpoints.** ${markdownText(view.summary)}`, '', `| endpoint | requests | knee (${markdownText(parameter)}) | p99 ms${markdownText(at)} |`, '| --- | ---: | ---: | ---: |', ...rows, ...more].join('\n');
}
