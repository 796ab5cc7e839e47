import { z } from 'zod';
import type { CurvePoint, PercentileSource, PercentilesWanted } from '@kneeboard/contracts';
import type { Db } from '../db.ts';
import { CurveRow, exactPointColumns, toPoint } from './curve.ts';
import { levelStateColumns, partsSql, queryRollupCurve, rollupPoint, stateAnswers, StateRow, type Sketch } from './curve-rollup.ts';
import { curveSource } from './run-curve.ts';
import { NO_DATA, readRunState } from './run-versions.ts';
import { windowConditions, type StepWindowBounds } from './rollup-window.ts';
import { WINDOWED_REQUESTS } from './window.ts';

/**
 * Several names' curves in one read: each exactly what `queryCurve(db, run, wanted, name)`
 * answers for it — the same points, from the same source for the run — but with `name` a key of
 * the GROUP BY instead of a filter, so N names cost one scan of the raw rows (small runs, exact)
 * or one of the per-name rollup plus the windows' edge seconds (the rollup path), not N. The
 * columns are the per-name reads' own (exactPointColumns, partsSql, levelStateColumns), so the
 * two cannot drift apart; a name's mean is summed in integer µs there, so it is the same double however the rows are added. A name without requests in any window gets an empty curve, as there.
 * `state` is the run's readRunState, when the caller has just read it.
 */
export async function queryNameCurves(
  db: Db,
  runId: string,
  wanted: PercentilesWanted,
  names: string[],
  state?: Awaited<ReturnType<typeof readRunState>>,
): Promise<{ curves: Map<string, CurvePoint[]>; percentiles: PercentileSource }> {
  const { versions, windows } = state ?? (await readRunState(db, [runId]));
  const percentiles = curveSource(wanted, (versions.get(runId) ?? NO_DATA).requests);
  const curves = new Map<string, CurvePoint[]>(names.map((n) => [n, []]));
  if (names.length === 0) return { curves, percentiles };
  if (percentiles === 'exact') await exactCurves(db, runId, names, curves);
  else await rollupCurves(db, runId, windows, names, curves);
  return { curves, percentiles };
}

const NamedCurveRow = CurveRow.extend({ name: z.string() });

/** queryExactCurve's points for every name at once. Rows come ordered by name, then level. */
async function exactCurves(db: Db, runId: string, names: string[], curves: Map<string, CurvePoint[]>): Promise<void> {
  const result = await db.client.query({
    query: `
      SELECT
        r.name AS name,
        ${exactPointColumns(true)}
      ${WINDOWED_REQUESTS}
        AND r.name IN {names:Array(String)}
      GROUP BY r.name, r.level
      ORDER BY r.name, r.level`,
    query_params: { run_ids: [runId], names },
    format: 'JSONEachRow',
  });
  for (const row of z.array(NamedCurveRow).parse(await result.json())) curves.get(row.name)?.push(toPoint(row));
}

const NamedStateRow = StateRow.extend({ name: z.string() });

/**
 * queryRollupCurve's points for every name at once: the per-name rollup and the edge seconds'
 * raw rows, merged per (name, level) in one statement; the ranks answered here from the states.
 * If a state is not in the layout ddsketch-state.ts reads (another ClickHouse version), the names
 * are read one by one instead, by queryRollupCurve, whose fallback asks ClickHouse for the ranks.
 */
async function rollupCurves(db: Db, runId: string, windows: StepWindowBounds[], names: string[], curves: Map<string, CurvePoint[]>): Promise<void> {
  if (windows.length === 0) return;
  const where = windowConditions(windows);
  const result = await db.client.query({
    query: `
      SELECT name, ${levelStateColumns('each')}
      FROM (${partsSql(where, 'each')})
      GROUP BY name, level
      HAVING requests > 0
      ORDER BY name, level`,
    query_params: { ...where.params, names },
    format: 'JSONEachRow',
  });
  const rows = z.array(NamedStateRow).parse(await result.json());
  let answers: Sketch[];
  try {
    answers = rows.map(stateAnswers);
  } catch {
    for (const name of names) curves.set(name, await queryRollupCurve(db, runId, windows, 'here', name));
    return;
  }
  const windowOf = (level: number) => windows.find((w) => w.level === level) as StepWindowBounds;
  rows.forEach((row, i) => curves.get(row.name)?.push(rollupPoint(row, windowOf(row.level), answers[i])));
}
