import { z } from 'zod';
import type { CurvePoint } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { REQUEST_SECONDS } from '../request-seconds.ts';
import { RAW_EVENTS } from '../raw-events.ts';
import { curvePoint } from './curve.ts';
import { interpolate, rankPair } from './rank-quantiles.ts';
import { ddSketchQuantiles, decodeDDSketchState, type DDSketchState } from './ddsketch-state.ts';
import { mergedStateHex, ROLLUP_DD as DD, ROLLUP_SCALE as SCALE, type RanksAnsweredBy } from './rollup-sketch.ts';
import { readStepWindows, windowConditions, type StepWindowBounds } from './rollup-window.ts';
import { OK } from './window.ts';

/** The percentile series of a curve point: which sketch, which count, which levels. */
const SERIES = {
  lat: { state: 's_latency', count: 'n_ok', levels: [0.5, 0.9, 0.99, 0.999] },
  compute: { state: 's_compute', count: 'n_compute', levels: [0.5, 0.99] },
  queue: { state: 's_queue', count: 'n_queue', levels: [0.5, 0.99] },
  other: { state: 's_other', count: 'n_other', levels: [0.5] },
} as const;
export type Series = keyof typeof SERIES;

const OK_WITH = {
  compute: `${OK} AND r.compute_ms IS NOT NULL`,
  queue: `${OK} AND r.queue_ms IS NOT NULL`,
  other: `${OK} AND (r.compute_ms IS NOT NULL OR r.queue_ms IS NOT NULL)`,
};

/**
 * Which requests the parts are of: the run's all (`false`), one name's (`true`, bound as
 * `{name:String}`), or each of several names' (`'each'`, bound as `{names:Array(String)}`, with
 * `name` as a column and a key of the raw part's GROUP BY, for name-curves.ts).
 */
export type PartsOf = boolean | 'each';

/**
 * The rollup's whole seconds and the raw rows of the windows' partial edge seconds, as the same
 * columns (raw rows turned into the same sketch states), so one GROUP BY merges a window. With a
 * name, the per-name rollup and that name's raw rows.
 */
export function partsSql(where: { rollup: string; raw: string }, named: PartsOf = false): string {
  const table = named ? 'kb_request_name_seconds_v1' : REQUEST_SECONDS;
  const only = (conditions: string) => (named === 'each' ? `(${conditions})
      AND r.name IN {names:Array(String)}` : named ? `(${conditions})
      AND r.name = {name:String}` : conditions);
  const nameColumn = named === 'each' ? 'r.name AS name, ' : '';
  // A name's latency sum in integer µs (as Float64, exact below 2^53): summed in any order, the
  // same double, so a name's curve read alone and read grouped with the others agree to the bit.
  const rollupSum = named ? 'round(toFloat64(r.ok_latency_sum) * 1000)' : 'toFloat64(r.ok_latency_sum)';
  const rawSum = named ? `toFloat64(sumIf(r.latency_us, ${OK}))` : `sumIf(r.latency_ms, ${OK})`;
  const rollupStates = ', r.latency AS s_latency, r.compute AS s_compute, r.queue AS s_queue, r.other AS s_other';
  const rawStates = `, quantilesDDStateIf(${DD}, 0.5)(r.latency_ms * ${SCALE}, ${OK}) AS s_latency,
         quantilesDDStateIf(${DD}, 0.5)(assumeNotNull(r.compute_ms) * ${SCALE}, ${OK_WITH.compute}) AS s_compute,
         quantilesDDStateIf(${DD}, 0.5)(assumeNotNull(r.queue_ms) * ${SCALE}, ${OK_WITH.queue}) AS s_queue,
         quantilesDDStateIf(${DD}, 0.5)((r.latency_ms - ifNull(r.compute_ms, 0) - ifNull(r.queue_ms, 0)) * ${SCALE}, ${OK_WITH.other}) AS s_other`;
  return `
    SELECT ${nameColumn}r.level AS level, toUInt64(r.requests) AS n, toUInt64(r.ok) AS n_ok, toUInt64(r.compute_n) AS n_compute,
           toUInt64(r.queue_n) AS n_queue, toUInt64(r.other_n) AS n_other,
           toFloat64(r.last_ts_ms) AS ts, ${rollupSum} AS latency_sum${rollupStates}
    FROM ${table} AS r
    WHERE ${only(where.rollup)}
    UNION ALL
    SELECT ${nameColumn}r.level AS level, count() AS n, countIf(${OK}) AS n_ok, countIf(${OK_WITH.compute}) AS n_compute,
           countIf(${OK_WITH.queue}) AS n_queue, countIf(${OK_WITH.other}) AS n_other,
           max(r.ts_ms) AS ts, ${rawSum} AS latency_sum${rawStates}
    FROM ${RAW_EVENTS} AS r
    WHERE ${only(where.raw)}
    GROUP BY ${named === 'each' ? 'r.name, ' : ''}r.level`;
}

const CountRow = z.object({
  level: z.number(),
  requests: z.coerce.number(),
  n_ok: z.coerce.number(),
  n_compute: z.coerce.number(),
  n_queue: z.coerce.number(),
  n_other: z.coerce.number(),
  last_ts: z.number().nullable(),
  latency_sum: z.number(),
});
type CountRow = z.infer<typeof CountRow>;

export type Sketch = Record<Series, Array<number | null>>;
const Answers = z.array(z.record(z.string(), z.array(z.number().nullable())));

/**
 * The fallback: per level, the merged sketches asked for the two ranks around every percentile. The ranks depend
 * on each level's count, so each (level, series) is its own `quantilesDDMergeIf` with bound
 * levels — all in one query over one read of the windows' rollup rows and edge seconds. (One query
 * per level read the edges once per level and, on the embedded engine, which runs one query at a
 * time, cost a round of parsing and planning each: measured 2–3× slower on two 10M-request runs.)
 */
async function levelSketches(db: Db, windows: StepWindowBounds[], counts: CountRow[], name?: string): Promise<Map<number, Sketch>> {
  const where = windowConditions(windows);
  const params: Record<string, unknown> = { ...where.params, ...(name === undefined ? {} : { name }) };
  const merges = counts.flatMap((c, i) => {
    params[`k${i}`] = c.level;
    return (Object.keys(SERIES) as Series[]).map((s) => {
      const { state, count, levels } = SERIES[s];
      const names = levels.flatMap((q, j) => {
        const pair = rankPair(q, c[count]);
        params[`k${i}${s}${j}lo`] = pair.lo;
        params[`k${i}${s}${j}hi`] = pair.hi;
        return [`{k${i}${s}${j}lo:Float64}`, `{k${i}${s}${j}hi:Float64}`];
      });
      return `quantilesDDMergeIf(${DD}, ${names.join(', ')})(${state}, level = {k${i}:Float64}) AS ${s}_${i}`;
    });
  });
  const result = await db.client.query({
    query: `SELECT ${merges.join(',\n')} FROM (${partsSql(where, name !== undefined)})`,
    query_params: params,
    format: 'JSONEachRow',
  });
  const row = Answers.parse(await result.json())[0] ?? {};
  const out = new Map<number, Sketch>();
  counts.forEach((c, i) => {
    out.set(c.level, { lat: row[`lat_${i}`] ?? [], compute: row[`compute_${i}`] ?? [], queue: row[`queue_${i}`] ?? [], other: row[`other_${i}`] ?? [] });
  });
  return out;
}

export const StateRow = CountRow.extend({ s_latency: z.string(), s_compute: z.string(), s_queue: z.string(), s_other: z.string() });
/** A level's counts and merged sketch states (hex) over its window: what a curve point is computed from. */
export type LevelStateRow = z.infer<typeof StateRow>;

/** A level's counts and merged states (a StateRow) over partsSql's rows (`named` as there), per group of the GROUP BY it is used with. */
export const levelStateColumns = (named: PartsOf): string => `level, sum(n) AS requests, sum(n_ok) AS n_ok, sum(n_compute) AS n_compute, sum(n_queue) AS n_queue,
             sum(n_other) AS n_other, max(ts) AS last_ts, sum(latency_sum)${named ? ' / 1000' : ''} AS latency_sum,
             ${['s_latency', 's_compute', 's_queue', 's_other'].map((column) => `${mergedStateHex(column)} AS ${column}`).join(', ')}`;

/**
 * Counts and merged sketch states per level in one read of the rollup rows and the edge seconds
 * (the raw edges are most of a cold curve's cost, and the two-query path below reads them twice).
 * The states come back as bytes (~3 KB a level).
 */
export async function queryLevelStates(db: Db, windows: StepWindowBounds[], name?: string): Promise<LevelStateRow[]> {
  if (windows.length === 0) return [];
  const where = windowConditions(windows);
  const result = await db.client.query({
    query: `
      SELECT ${levelStateColumns(name !== undefined)}
      FROM (${partsSql(where, name !== undefined)})
      GROUP BY level
      HAVING requests > 0
      ORDER BY level`,
    query_params: { ...where.params, ...(name === undefined ? {} : { name }) },
    format: 'JSONEachRow',
  });
  return z.array(StateRow).parse(await result.json());
}

/** A level's counts, as a curve point needs them. */
export type LevelCounts = CountRow;
/** A level's sketch for each series, in the state's unit (ns). */
export type LevelSketches = Record<Series, DDSketchState>;

/** The sketches' answers at the two ranks around each percentile of each series (what `percentiles` interpolates). */
export function sketchAnswers(c: LevelCounts, sketch: (series: Series) => DDSketchState): Sketch {
  const answer = (series: Series) => {
    const { count, levels } = SERIES[series];
    const ranks = levels.flatMap((q) => {
      const pair = rankPair(q, c[count]);
      return [pair.lo, pair.hi];
    });
    return [...ddSketchQuantiles(sketch(series), Number(DD), ranks)].map((v) => (Number.isNaN(v) ? null : v));
  };
  return { lat: answer('lat'), compute: answer('compute'), queue: answer('queue'), other: answer('other') };
}

/** A level's sketches' answers at the ranks, read from its merged states here; throws on a state it cannot read. */
export function stateAnswers(row: LevelStateRow): Sketch {
  return sketchAnswers(row, (series) => decodeDDSketchState(row[SERIES[series].state]));
}

/**
 * The ranks are answered here (ddsketch-state.ts), with ClickHouse's own arithmetic. Null
 * sketches if a state is not in the layout that code reads (another ClickHouse version): the
 * caller then asks ClickHouse for the ranks.
 */
async function levelCountsAndSketches(db: Db, windows: StepWindowBounds[], ranks: RanksAnsweredBy, name?: string): Promise<{ counts: CountRow[]; sketches: Map<number, Sketch> | null }> {
  const rows = await queryLevelStates(db, windows, name);
  const counts = rows.map(({ s_latency: _l, s_compute: _c, s_queue: _q, s_other: _o, ...c }) => c);
  // 'engine': the tests' reference, ClickHouse's own ranks (levelSketches), from the same counts.
  if (ranks === 'engine') return { counts, sketches: null };
  try {
    const sketches = new Map<number, Sketch>();
    for (const row of rows) sketches.set(row.level, stateAnswers(row));
    return { counts, sketches };
  } catch {
    return { counts, sketches: null };
  }
}

/** Each percentile of a series: the interpolation of the sketch's answers at its two ranks. */
function percentiles(series: Series, values: Array<number | null> | undefined, n: number): Array<number | null> {
  const ms = (v: number | null | undefined) => (v === null || v === undefined ? null : v / SCALE);
  return SERIES[series].levels.map((q, j) => interpolate(rankPair(q, n), ms(values?.[2 * j]), ms(values?.[2 * j + 1]), n));
}

/** A level's curve point from its counts and its sketches' answers at the ranks (sketchAnswers). */
export function rollupPoint(c: LevelCounts, w: Pick<StepWindowBounds, 'measure_from' | 'ended_at'>, s: Sketch | undefined): CurvePoint {
  return curvePoint({
    level: c.level,
    requests: c.requests,
    ok: c.n_ok,
    measureFrom: w.measure_from,
    endedAt: w.ended_at,
    lastTs: c.last_ts,
    meanMs: c.n_ok === 0 ? null : c.latency_sum / c.n_ok,
    lat: percentiles('lat', s?.lat, c.n_ok),
    compute: percentiles('compute', s?.compute, c.n_compute),
    queue: percentiles('queue', s?.queue, c.n_queue),
    other: percentiles('other', s?.other, c.n_other),
  });
}

/**
 * The run's curve from the rollup: the same points as queryExactCurve — counts, QPS, window and
 * mean exact — with percentiles from merged DDSketch states, interpolated between ranks like the
 * exact ones. Reads ~one rollup row per level-second plus the raw rows of each window's two
 * partial seconds, so its cost follows the run's length, not its request count. With `name`, that
 * name's curve, from the per-name rollup.
 */
export async function queryRollupCurve(db: Db, runId: string, known?: StepWindowBounds[], ranks: RanksAnsweredBy = 'here', name?: string): Promise<CurvePoint[]> {
  const windows = known ?? (await readStepWindows(db, [runId]));
  if (windows.length === 0) return [];
  const read = await levelCountsAndSketches(db, windows, ranks, name);
  const { counts } = read;
  if (counts.length === 0) return [];
  const windowOf = (level: number) => windows.find((x) => x.level === level) as StepWindowBounds;
  const sketches = read.sketches ?? (await levelSketches(db, windows.filter((w) => counts.some((c) => c.level === w.level)), counts, name));
  return counts.map((c) => rollupPoint(c, windowOf(c.level), sketches.get(c.level)));
}
