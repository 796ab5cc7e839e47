import { z } from 'zod';
import type { Db } from '../db.ts';
import { boundUsSql } from '../raw-events.ts';

/**
 * How the rollup answers for a step's measurement window [measure_from, ended_at] (ms) exactly:
 * the whole seconds inside it come from the rollup (REQUEST_SECONDS), the partial seconds at its two
 * edges from raw rows. Both parts use the same bounds, computed once here, so every request in
 * the window is counted once and none outside it.
 */
export interface StepWindowBounds {
  run_id: string;
  level: number;
  measure_from: number;
  /** Null while the step runs: the window reaches the newest request. */
  ended_at: number | null;
  /** The first whole second inside the window. */
  first_second: number;
  /** The second after the last whole second (exclusive); null for an open window. */
  end_second: number | null;
}

const WindowRow = z.object({
  run_id: z.string(),
  level: z.number(),
  measure_from: z.number(),
  ended_at: z.number().nullable(),
});

export function boundsOf(w: z.infer<typeof WindowRow>): StepWindowBounds {
  return {
    ...w,
    first_second: Math.ceil(w.measure_from / 1000),
    end_second: w.ended_at === null ? null : Math.floor(w.ended_at / 1000),
  };
}

/** The latest step windows of the given runs. */
export async function readStepWindows(db: Db, runIds: string[]): Promise<StepWindowBounds[]> {
  if (runIds.length === 0) return [];
  const result = await db.client.query({
    query: `SELECT run_id, level, measure_from_ms AS measure_from, ended_at_ms AS ended_at
            FROM kb_steps_v1 FINAL WHERE run_id IN {run_ids:Array(UUID)}`,
    query_params: { run_ids: runIds },
    format: 'JSONEachRow',
  });
  return z.array(WindowRow).parse(await result.json()).map(boundsOf);
}

/**
 * The conditions that split the windows between the two sources, as ranges of each table's sort
 * key — rollup (run_id, level, second), raw (run_id, level, ts_ms) — with bound values, so
 * ClickHouse reads only the rollup rows of the windows and the raw granules around each edge:
 * - rollup: the whole seconds [first_second, end_second);
 * - raw: [measure_from, first whole second) and [end second, ended_at].
 * The SQL's shape depends only on how many windows there are; every value is a query parameter.
 */
export function windowConditions(windows: StepWindowBounds[], prefix = 'w'): { rollup: string; raw: string; params: Record<string, string | number> } {
  const params: Record<string, string | number> = {};
  const rollup: string[] = [];
  const raw: string[] = [];
  windows.forEach((w, i) => {
    const p = `${prefix}${i}`;
    Object.assign(params, { [`${p}_run`]: w.run_id, [`${p}_level`]: w.level, [`${p}_from`]: w.measure_from, [`${p}_first`]: w.first_second, [`${p}_first_us`]: w.first_second * 1_000_000 });
    const key = `r.run_id = {${p}_run:UUID} AND r.level = {${p}_level:Float64}`;
    // Bounds as the table stores times (boundUsSql); whole seconds are exact in µs either way.
    const head = `r.ts_us >= ${boundUsSql(`{${p}_from:Float64}`)} AND r.ts_us < {${p}_first_us:Int64}`;
    if (w.ended_at === null || w.end_second === null) {
      rollup.push(`(${key} AND r.second >= {${p}_first:Int64})`);
      raw.push(`(${key} AND ${head})`);
      return;
    }
    Object.assign(params, { [`${p}_end`]: w.ended_at, [`${p}_last`]: w.end_second, [`${p}_last_us`]: w.end_second * 1_000_000 });
    rollup.push(`(${key} AND r.second >= {${p}_first:Int64} AND r.second < {${p}_last:Int64})`);
    // Both ranges clamp to the window, so a window inside one second is covered by either alone.
    const inside = `r.ts_us >= ${boundUsSql(`{${p}_from:Float64}`)} AND r.ts_us <= ${boundUsSql(`{${p}_end:Float64}`)}`;
    raw.push(`(${key} AND ${inside} AND (r.ts_us < {${p}_first_us:Int64} OR r.ts_us >= {${p}_last_us:Int64}))`);
  });
  const or = (xs: string[]) => (xs.length === 0 ? '0' : xs.join('\n    OR '));
  return { rollup: or(rollup), raw: or(raw), params };
}
