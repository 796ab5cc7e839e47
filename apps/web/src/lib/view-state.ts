/**
 * A view's whole state lives in its URL, so a link (or a short link to it) reproduces the view
 * exactly: which runs, which percentiles, the scales, the USL fit toggle and the visible levels.
 * This module is the one place that reads and writes that state.
 *
 *   /runs/{id}?metrics=p50,p99&x=log&y=log&fit=1&levels=4-64
 *   /runs/{id}?slo=p99<=50ms,errors<=1%           capacity under those SLOs (`slo=none`: none, not even the run's tag)
 *   /runs/{id}?name=checkout                      one request name's curve (a run whose events carry names)
 *   /compare?base={id}&head={id}&head={id}&metrics=p99&y=log&levels=4-64&min_effect=0.1
 *   /compare?base={id},{id},{id}&head={id},{id}        groups of repeated runs, one per side
 *   /compare?base=release:checkout@v1.0&head=release:checkout@v1.1   every finished run of each release
 *   /compare?base={id}&head={id}&noise_asof=1795000000000   the run-to-run noise basis pinned (single runs)
 *   /compare?base={id}&head={id}&slo=p99<=50ms    capacity at those SLOs for each side (default: the base run's `slo` tag; `slo=none`: none)
 *   /review?…                                 the same query as /compare
 *
 * Defaults are left out of the URL (a plain `/compare?base=…&head=…` is the default view), and
 * a value that cannot be read falls back to its default rather than failing the page; only the
 * runs themselves must be valid. `x` and `fit` default to "automatic" (log x when the levels span
 * more than 8×, the fit when R² ≥ 0.9 on the run page), which is a rule on the data, so an
 * automatic URL still shows the same view wherever it is opened.
 */
import {
  EventName,
  formatLevelSelection,
  formatRunGroupRef,
  MAX_COMPARED_HEADS,
  formatSlos,
  parseLevelSelection,
  parseSlos,
  RunGroupParam,
  type LevelSelection,
  type RunGroupRef,
} from '@kneeboard/contracts';
import { formatPercentSetting } from '@kneeboard/contracts/figures';
import { z } from 'zod';
import { latencyKeysIn, metricOf, type ScaleKind } from '@kneeboard/chart-prep';
import { LATENCY_SERIES, type LatencyKey } from './series.ts';

export const DEFAULT_METRICS: readonly LatencyKey[] = LATENCY_SERIES.filter((s) => s.defaultOn).map((s) => s.key);
export const DEFAULT_MIN_EFFECT = 0.05;

/** `levels=` is read and written by the contracts' LevelSelection, as the API's SVG routes read it. */
export type { LevelSelection };

/** What every chart view shares. */
export interface ChartSettings {
  /** Latency percentiles drawn, in LATENCY_SERIES order. */
  metrics: LatencyKey[];
  /** null: automatic (log when the levels span more than 8×). */
  x: ScaleKind | null;
  y: ScaleKind;
  /** null: the view's default (on the run page: on when R² ≥ 0.9; on a comparison: off). */
  fit: boolean | null;
  /** null: every level. */
  levels: LevelSelection | null;
}

/** The run page's SLOs: canonical clauses (`p99<=50ms,errors<=1%`), SLO_NONE, or null — follow the run's own `slo` tag. */
export type SloSetting = string | null;
/** `slo=none`: the reader turned the SLOs off, even where the run carries an `slo` tag. */
export const SLO_NONE = 'none';

export interface RunViewState extends ChartSettings {
  id: string;
  /** Absent or null: the run's `slo` tag, if any. */
  slo?: SloSetting;
  /** One request name's curve (`name=`); absent: the whole run's. */
  name?: string;
}

export interface CompareViewState extends ChartSettings {
  /**
   * The base side as the URL writes it (canonical): a run id, ids of repeats (`ID,ID,ID`) or
   * `release:SERVICE@RELEASE`. The API's compare endpoint reads the same text.
   */
  base: string;
  /** 1 to 7 head sides, written like the base, without repeats. */
  heads: string[];
  /** Smallest relative change the comparison calls (0–1). */
  minEffect: number;
  /** The run-to-run noise basis a single-run side borrows, pinned (`noise_asof`, epoch ms); absent: the newest. */
  noiseAsof?: number | null;
  /** The SLOs capacity is compared at, as on the run page: canonical, SLO_NONE, or absent/null — the base run's `slo` tag. */
  slo?: SloSetting;
}

export const DEFAULT_SETTINGS: ChartSettings = { metrics: [...DEFAULT_METRICS], x: null, y: 'linear', fit: null, levels: null };

export type SearchParams = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim();
const all = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((s) => s.trim()).filter(Boolean);

/**
 * The levels from `a` to `b` (either order) over the swept `levels`, as the URL keeps them: null
 * (every level) when the range covers them all, an open end where it reaches the first or last.
 */
export function rangeSelection(levels: ReadonlyArray<number>, a: number, b: number): LevelSelection | null {
  const lo = levels[0];
  const hi = levels[levels.length - 1];
  if (lo === undefined || hi === undefined) return null;
  const [min, max] = a <= b ? [a, b] : [b, a];
  return min <= lo && max >= hi ? null : { kind: 'range', min: min <= lo ? null : min, max: max >= hi ? null : max };
}

const Scale = z.enum(['linear', 'log']);

/** The raw query, one field at a time: anything unreadable becomes its default. */
const SettingsQuery = z.object({
  metrics: z
    .string()
    .optional()
    .transform((s): LatencyKey[] => {
      if (s === undefined) return [...DEFAULT_METRICS];
      if (s === 'none') return [];
      // Unknown words are left out (a link still opens); none known: the default view.
      const keys = latencyKeysIn(s);
      return keys.length === 0 ? [...DEFAULT_METRICS] : keys;
    }),
  x: Scale.nullable().catch(null).default(null),
  y: Scale.catch('linear').default('linear'),
  fit: z
    .string()
    .optional()
    .transform((s) => (s === undefined ? null : ['1', 'on', 'true'].includes(s) ? true : ['0', 'off', 'false'].includes(s) ? false : null)),
  levels: z
    .string()
    .optional()
    .transform((s) => (s === undefined || s === '' ? null : parseLevelSelection(s))),
});

function settingsFrom(params: SearchParams): ChartSettings {
  const raw = { metrics: first(params.metrics), x: first(params.x), y: first(params.y), fit: first(params.fit), levels: first(params.levels) };
  return SettingsQuery.parse(raw);
}

/** `slo=` as the run page keeps it: canonical when it parses, SLO_NONE, or null (unreadable or absent: the default). */
export function parseSloSetting(text: string | undefined): SloSetting {
  if (text === undefined || text === '') return null;
  if (text === SLO_NONE) return SLO_NONE;
  const parsed = parseSlos(text);
  return parsed.ok ? formatSlos(parsed.clauses) : null;
}

/** The run page's state; the id comes from the path. */
export function parseRunView(id: string, params: SearchParams): RunViewState {
  const slo = parseSloSetting(first(params.slo));
  const name = parseNameSetting(params.name);
  return { id, ...settingsFrom(params), ...(slo === null ? {} : { slo }), ...(name === null ? {} : { name }) };
}

/**
 * `name=` as the API reads it (EventName, not empty; untrimmed: a name is the user's exact string);
 * anything else is the whole run, as a bad value falls back everywhere here.
 */
export function parseNameSetting(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === '') return null;
  return EventName.safeParse(text).success ? text : null;
}

export type ParsedCompare = { ok: true; state: CompareViewState } | { ok: false; error: string; empty: boolean };

/** A side's text as run ids or a release; the reason when it is neither. */
function readSide(text: string, where: string): { ok: true; ref: RunGroupRef } | { ok: false; error: string } {
  const parsed = RunGroupParam.safeParse(text);
  return parsed.success ? { ok: true, ref: parsed.data } : { ok: false, error: `Cannot compare: the ${where} is not readable (${parsed.error.issues[0]?.message ?? 'unknown form'}).` };
}

/**
 * The comparison's state. Fails (with a sentence for the page) only when the runs are missing or
 * malformed; a head that repeats the base or another head is dropped. Each side is a run id, ids
 * of repeats compared as a group, or `release:SERVICE@RELEASE`.
 */
export function parseCompareView(params: SearchParams): ParsedCompare {
  const baseText = first(params.base) ?? '';
  const headTexts = all(params.head);
  if (baseText === '' && headTexts.length === 0) return { ok: false, error: 'Pick a base run and at least one run to compare with it.', empty: true };
  if (baseText === '') return { ok: false, error: 'Cannot compare: no base run.', empty: false };
  const base = readSide(baseText, 'base');
  if (!base.ok) return { ok: false, error: base.error, empty: false };
  const heads: string[] = [];
  for (const text of headTexts) {
    const head = readSide(text, 'head');
    if (!head.ok) return { ok: false, error: head.error, empty: false };
    heads.push(formatRunGroupRef(head.ref));
  }
  const baseSide = formatRunGroupRef(base.ref);
  const distinct = [...new Set(heads)].filter((h) => h !== baseSide);
  if (distinct.length === 0) return { ok: false, error: 'Cannot compare: compare at least one head run with the base.', empty: false };
  if (distinct.length > MAX_COMPARED_HEADS) return { ok: false, error: `Cannot compare: compare at most ${MAX_COMPARED_HEADS} head runs with one base.`, empty: false };
  const effect = Number(first(params.min_effect));
  const minEffect = first(params.min_effect) !== undefined && Number.isFinite(effect) && effect >= 0 && effect <= 1 ? effect : DEFAULT_MIN_EFFECT;
  const asof = Number(first(params.noise_asof));
  const noiseAsof = Number.isSafeInteger(asof) && asof > 0 ? asof : null;
  const slo = parseSloSetting(first(params.slo));
  return { ok: true, state: { ...settingsFrom(params), base: baseSide, heads: distinct, minEffect, ...(noiseAsof === null ? {} : { noiseAsof }), ...(slo === null ? {} : { slo }) } };
}

/** The sides of a comparison as refs, base first (the state only holds texts that parse). */
export function compareSides(state: Pick<CompareViewState, 'base' | 'heads'>): RunGroupRef[] {
  return [state.base, ...state.heads].map((text) => RunGroupParam.parse(text));
}

/** A query string from ordered pairs; commas, `:` and `@` stay readable (`metrics=p50,p99`, `base=release:svc@v1`). */
export function queryString(pairs: ReadonlyArray<readonly [string, string]>): string {
  if (pairs.length === 0) return '';
  const readable = (v: string) => encodeURIComponent(v).replace(/%2C/gi, ',').replace(/%3A/gi, ':').replace(/%40/g, '@');
  return `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${readable(v)}`).join('&')}`;
}

function sameMetrics(a: ReadonlyArray<LatencyKey>, b: ReadonlyArray<LatencyKey>): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/** The settings as query pairs, defaults left out, always in the same order. */
export function settingsPairs(s: ChartSettings): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (!sameMetrics(s.metrics, DEFAULT_METRICS)) pairs.push(['metrics', s.metrics.length === 0 ? 'none' : s.metrics.map(metricOf).join(',')]);
  if (s.x !== null) pairs.push(['x', s.x]);
  if (s.y !== 'linear') pairs.push(['y', s.y]);
  if (s.fit !== null) pairs.push(['fit', s.fit ? '1' : '0']);
  if (s.levels !== null) pairs.push(['levels', formatLevelSelection(s.levels)]);
  return pairs;
}

export function runViewPath(state: RunViewState): string {
  const pairs = settingsPairs(state);
  if (state.slo) pairs.push(['slo', state.slo]);
  if (state.name) pairs.push(['name', state.name]);
  return `/runs/${encodeURIComponent(state.id)}${queryString(pairs)}`;
}

/** The runs of a comparison as query pairs: `base=…&head=…&head=…`. */
export function comparePairs(state: Pick<CompareViewState, 'base' | 'heads'>): Array<[string, string]> {
  return [['base', state.base], ...state.heads.map((h): [string, string] => ['head', h])];
}

/** `/compare?…` (or `/review?…` for the printable report of the same view). */
export function compareViewPath(state: CompareViewState, page: 'compare' | 'review' = 'compare'): string {
  const pairs = [...comparePairs(state), ...settingsPairs(state)];
  if (state.minEffect !== DEFAULT_MIN_EFFECT) pairs.push(['min_effect', String(state.minEffect)]);
  if (state.noiseAsof) pairs.push(['noise_asof', String(state.noiseAsof)]);
  if (state.slo) pairs.push(['slo', state.slo]);
  return `/${page}${queryString(pairs)}`;
}

/** The SLOs the URL itself names (canonical), or null: none, or the base run's tag (which only the runs know). */
export function urlSlo(state: Pick<CompareViewState, 'slo'>): string | null {
  return state.slo && state.slo !== SLO_NONE ? state.slo : null;
}

/**
 * The API query for this comparison's statistics (ENDPOINTS.compare). `slo`: the SLOs in force
 * (the URL's, or the base run's tag once the runs are known); by default the URL's.
 */
export function compareApiQuery(state: CompareViewState, slo: string | null = urlSlo(state)): string {
  const pairs = comparePairs(state);
  if (state.minEffect !== DEFAULT_MIN_EFFECT) pairs.push(['min_effect', String(state.minEffect)]);
  if (state.noiseAsof) pairs.push(['noise_asof', String(state.noiseAsof)]);
  if (slo) pairs.push(['slo', slo]);
  return queryString(pairs);
}

/**
 * The drawing options the API's embeddable SVGs understand (`metrics`, `levels`, `y`), so an
 * embedded image matches the view it was taken from. No percentiles ("none") is left out: the
 * image then shows its default.
 */
export function svgViewPairs(s: ChartSettings): Array<[string, string]> {
  return settingsPairs(s).filter(([k, v]) => (k === 'metrics' ? v !== 'none' : k === 'levels' || k === 'y'));
}

/** The choices the comparison's "call changes from …" control offers (as fractions). */
export const MIN_EFFECT_CHOICES: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2];

/** `5%`, `2.5%`: a min_effect as the control and the review print it. */
export function formatMinEffect(minEffect: number): string {
  return formatPercentSetting(minEffect);
}

/** The control's options: the standard choices, plus the URL's own value when it is none of them (a link keeps its view). */
export function minEffectOptions(current: number): Array<{ value: number; label: string }> {
  const values = MIN_EFFECT_CHOICES.some((c) => Math.abs(c - current) < 1e-9) ? [...MIN_EFFECT_CHOICES] : [...MIN_EFFECT_CHOICES, current].sort((a, b) => a - b);
  return values.map((value) => ({ value, label: formatMinEffect(value) }));
}
