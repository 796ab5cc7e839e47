import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../src/index.ts';
import { ddSketchQuantiles, decodeDDSketchState } from '../src/queries/ddsketch-state.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-ddsketch-'));
const db = openDb({ mode: 'embedded', path: dir });
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const LEVELS = Array.from({ length: 2000 }, (_, k) => (2 * k + 1) / 4000);
const ACCURACY = 0.005;

/** ClickHouse's own answer and the state it keeps, for the same values (an expression over numbers(n)). */
async function engineAndState(values: string, n: number, groups = 1): Promise<{ engine: number[]; state: string }> {
  const res = await db.client.query({
    query: `
      WITH data AS (SELECT number % ${groups} AS g, ${values} AS x FROM numbers(${n})),
           states AS (SELECT g, quantilesDDState(${ACCURACY}, 0.5)(x) AS s FROM data GROUP BY g)
      SELECT (SELECT quantilesDD(${ACCURACY}, ${LEVELS.join(',')})(x) FROM data) AS engine,
             (SELECT hex(quantilesDDMergeState(${ACCURACY}, 0.5)(s)) FROM states) AS state`,
    format: 'JSONEachRow',
    clickhouse_settings: { max_query_size: '1000000' },
  });
  const [row] = (await res.json()) as Array<{ engine: Array<number | null>; state: string }>;
  return { engine: row!.engine.map((v) => (v === null ? Number.NaN : v)), state: row!.state };
}

function expectSame(mine: Float64Array, engine: number[]): void {
  expect(mine.length).toBe(engine.length);
  for (let i = 0; i < engine.length; i++) {
    const e = engine[i]!;
    if (Number.isNaN(e)) expect(mine[i]).toBeNaN();
    // The same doubles up to the last bit or two of exp/log between libm and V8.
    else expect(Math.abs(mine[i]! - e)).toBeLessThanOrEqual(Math.abs(e) * 1e-12);
  }
}

describe('DDSketch states read in JavaScript (ddsketch-state.ts)', () => {
  it.each([
    ['latency-like (dense store), merged from 7 partial states', 'exp(1 + 4 * pow((cityHash64(number) % 100000) / 100000, 2))', 200_000, 7],
    ['values 1e-3 … 1e9 (sparse store)', 'pow(10, (number * 7919 % 1000) / 1000 * 12 - 3)', 5_000, 1],
    ['zeros, negatives and positives', '(number % 5 - 2) * (1 + number % 13)', 10_000, 3],
    ['one value', '42.0', 100, 1],
  ])('gives ClickHouse quantilesDD’s 2,000 quantiles for %s', async (_name, values, n, groups) => {
    const { engine, state } = await engineAndState(values, n, groups);
    expectSame(ddSketchQuantiles(decodeDDSketchState(state), ACCURACY, LEVELS), engine);
  });

  it('answers NaN for an empty sketch, as ClickHouse does', async () => {
    const { engine, state } = await engineAndState('toFloat64(number)', 0);
    expect(engine.every(Number.isNaN)).toBe(true);
    expectSame(ddSketchQuantiles(decodeDDSketchState(state), ACCURACY, LEVELS), engine);
  });

  it('refuses bytes that are not a state, so the caller can ask ClickHouse instead', async () => {
    const { state } = await engineAndState('toFloat64(number)', 100);
    expect(() => decodeDDSketchState('')).toThrow(/ends early/);
    expect(() => decodeDDSketchState(`03${state.slice(2)}`)).toThrow(/logarithmic mapping/);
    expect(() => decodeDDSketchState(state.slice(0, -4))).toThrow(/ends early/);
    expect(() => decodeDDSketchState(`${state}00`)).toThrow(/bytes after/);
    // A store encoding ClickHouse never writes (0x08, index deltas without counts).
    expect(() => decodeDDSketchState(`${state.slice(0, 36)}08${state.slice(38)}`)).toThrow(/encoding 0x8/);
  });
});
