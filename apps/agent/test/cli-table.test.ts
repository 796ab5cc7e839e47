import { describe, expect, it } from 'vitest';
import { formatInFlight, formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';
import { columnsFor, tableRow } from '../src/cli/format.ts';
import { LevelStats, type LevelSummary } from '../src/load/level-stats.ts';
import type { Completion } from '../src/load/target-client.ts';

const ok: Pick<Completion, 'errorKind' | 'computeMs' | 'queueMs' | 'unparseable'> = { errorKind: null, computeMs: null, queueMs: null, unparseable: 0 };

function summary(over: Partial<LevelSummary>): LevelSummary {
  const stats = new LevelStats(1, 0, 1_000);
  stats.add(500, 1, ok);
  return {
    ...stats.summarize(0, 1_000, false),
    load_model: 'closed',
    load: 1,
    sent_per_s: null,
    health: { target: 1, in_flight_mean: null, late_sends: 0, missed_sends: 0, agent_cpu_cores: 0.5, event_loop_delay_p99_ms: 1, generator_limited: false, reason: null },
    ...over,
  };
}

describe('the live table prints the shared figures', () => {
  it('a level, its QPS, latencies and in-flight count read as on the web page and in the Markdown', () => {
    const s = summary({ level: 12.5, qps: 1234.5, p50_ms: 0.254, p99_ms: 1778.2, in_flight: 12.5 });
    const cells = tableRow(columnsFor('closed', 'concurrency'), s)
      .split('|')
      .map((c) => c.trim())
      .filter((c) => c !== '');
    // concurrency, QPS, p50, p99, p99.9, compute p50, queue p50, errors, in-flight, Little, ...
    expect(cells.slice(0, 4)).toEqual([formatLevel(12.5), formatQps(1234.5), `${formatMs(0.254)} ms`, `${formatMs(1778.2)} ms`]);
    expect(cells.slice(0, 4)).toEqual(['12.5', '1,235', '0.25 ms', '1,778 ms']);
    expect(cells[9]).toBe(formatInFlight(12.5));
  });
});
