import { ddSketchQuantiles, decodeDDSketchState } from './ddsketch-state.ts';

/** DDSketch relative accuracy of the rollup's states: it must match the migrations' column types. */
export const ROLLUP_DD = '0.005';
/**
 * States hold nanoseconds (ms × 1e6), as the view writes them: ClickHouse's quantilesDD is off by
 * up to 3× its accuracy for values below 1 (measured on 26.7), and no latency is below 1 ns.
 */
export const ROLLUP_SCALE = 1e6;

/** Who answers a rollup sketch's ranks: this process from the state's bytes, or ClickHouse (the fallback, and the tests' reference). */
export type RanksAnsweredBy = 'here' | 'engine';

/** SQL: a rollup state column merged over the group, as the hex of its bytes (~3 KB a level). */
export const mergedStateHex = (column: string): string => `hex(quantilesDDMergeState(${ROLLUP_DD}, 0.5)(${column}))`;

/**
 * A merged rollup state's quantiles at `levels`, in the state's unit (ns), as ClickHouse's
 * `quantilesDDMerge` would answer them; NaN for an empty state. Throws on bytes it cannot read.
 */
export function rollupQuantiles(stateHex: string, levels: readonly number[]): Float64Array {
  return ddSketchQuantiles(decodeDDSketchState(stateHex), Number(ROLLUP_DD), levels);
}
