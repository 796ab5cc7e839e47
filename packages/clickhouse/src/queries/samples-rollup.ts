import { z } from 'zod';
import type { Db } from '../db.ts';
import { REQUEST_SECONDS } from '../request-seconds.ts';
import { mergedStateHex, rollupQuantiles, ROLLUP_DD as DD, ROLLUP_SCALE as SCALE, type RanksAnsweredBy } from './rollup-sketch.ts';
import { readStepWindows, windowConditions, type StepWindowBounds } from './rollup-window.ts';
import type { LevelSampleRows } from './samples.ts';

/** The grid's size: as many latencies per level as the raw sample takes (samples.ts). */
export const GRID_POINTS = 20_000;
/** A window of at least this many whole seconds has ≥ 10 one-second QPS buckets, as samples.ts asks. */
const MIN_WHOLE_SECONDS = 10;

/** The mid-points of GRID_POINTS equal slices of (0, 1), ascending. */
const GRID_LEVELS = Array.from({ length: GRID_POINTS }, (_, k) => (2 * k + 1) / (2 * GRID_POINTS));
/** The same as SQL literals, fixed by a constant so the SQL never depends on a value: ~200 KB of text, hence the raised max_query_size below. */
const GRID = GRID_LEVELS.map(String).join(',');

const CountRow = z.object({ level: z.number(), second: z.coerce.number(), n: z.coerce.number() });
const GridRow = z.object({ level: z.number(), q: z.array(z.number().nullable()) });
const StateRow = z.object({ level: z.number(), sketch: z.string() });

type Where = ReturnType<typeof windowConditions>;

/** Drops what ClickHouse answers for an empty sketch (NaN, or null in JSON) and scales to ms. */
const latenciesOf = (values: Iterable<number | null>): number[] => [...values].flatMap((v) => (v === null || Number.isNaN(v) ? [] : [v / SCALE]));

/**
 * The grid from each level's merged sketch state, computed here (ddsketch-state.ts): ~3 KB per
 * level over the wire, one walk of the bins. Null when a state is not in the layout this reads
 * (another ClickHouse version, say): then ClickHouse answers the grid itself.
 */
async function gridFromStates(db: Db, where: Where): Promise<Map<number, number[]> | null> {
  const rows = z.array(StateRow).parse(
    await (
      await db.client.query({
        query: `SELECT r.level AS level, ${mergedStateHex('r.latency')} AS sketch FROM ${REQUEST_SECONDS} AS r WHERE ${where.rollup} GROUP BY level`,
        query_params: where.params,
        format: 'JSONEachRow',
      })
    ).json(),
  );
  try {
    return new Map(rows.map((row) => [row.level, latenciesOf(rollupQuantiles(row.sketch, GRID_LEVELS))]));
  } catch {
    return null;
  }
}

/** The grid as ClickHouse answers it: GRID_POINTS literal quantiles per level (~240 ms for ten levels). */
async function gridFromEngine(db: Db, where: Where): Promise<Map<number, number[]>> {
  const grid = z.array(GridRow).parse(
    await (
      await db.client.query({
        query: `SELECT r.level AS level, quantilesDDMerge(${DD}, ${GRID})(r.latency) AS q FROM ${REQUEST_SECONDS} AS r WHERE ${where.rollup} GROUP BY level`,
        query_params: where.params,
        format: 'JSONEachRow',
        clickhouse_settings: { max_query_size: '1000000' },
      })
    ).json(),
  );
  return new Map(grid.map((g) => [g.level, latenciesOf(g.q)]));
}

/**
 * A comparison's raw material from the rollup, for runs too large to sample raw rows quickly:
 * - QPS per one-second bucket: the rollup's exact successful-request counts of each whole second
 *   in the window (the raw path anchors its buckets at measure_from; here they are the stored
 *   seconds, and the two partial edge seconds are left out rather than counted as short buckets);
 * - latencies: GRID_POINTS quantiles of the level's merged DDSketch at evenly spaced ranks — a
 *   stratified sample of the whole seconds' successful requests, each value within 0.5% of the
 *   order statistic at its rank. Resampling it gives the intervals a 20,000-value random sample
 *   gives, with less sampling noise; the answer is marked approximate (`samples: 'rollup'`).
 * Null when a window is open, shorter than ten whole seconds, or has fewer successful requests than
 * the grid: there the raw rows are as cheap and exact (the caller falls back to them).
 */
export async function queryRollupLevelSamples(db: Db, runId: string, known?: StepWindowBounds[], ranks: RanksAnsweredBy = 'here'): Promise<LevelSampleRows[] | null> {
  const windows = (known ?? (await readStepWindows(db, [runId]))).filter((w) => w.run_id === runId);
  if (windows.length === 0) return null;
  if (windows.some((w) => w.end_second === null || w.end_second - w.first_second < MIN_WHOLE_SECONDS)) return null;
  const where = windowConditions(windows);
  const counts = z.array(CountRow).parse(
    await (
      await db.client.query({
        query: `SELECT r.level AS level, r.second AS second, sum(r.ok) AS n FROM ${REQUEST_SECONDS} AS r WHERE ${where.rollup} GROUP BY level, second`,
        query_params: where.params,
        format: 'JSONEachRow',
      })
    ).json(),
  );
  const perLevel = new Map(windows.map((w) => [w.level, new Array<number>((w.end_second as number) - w.first_second).fill(0)]));
  for (const c of counts) {
    const w = windows.find((x) => x.level === c.level) as StepWindowBounds;
    const buckets = perLevel.get(c.level);
    if (buckets) buckets[c.second - w.first_second] = c.n;
  }
  const levels = [...perLevel.entries()].filter(([, b]) => b.some((n) => n > 0));
  if (levels.some(([, b]) => b.reduce((a, n) => a + n, 0) < GRID_POINTS)) return null;

  const byLevel = (ranks === 'here' ? await gridFromStates(db, where) : null) ?? (await gridFromEngine(db, where));
  return levels
    .sort(([a], [b]) => a - b)
    .map(([level, per_second_ok]) => ({ level, per_second_ok, latencies: byLevel.get(level) ?? [] }));
}
