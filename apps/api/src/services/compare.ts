import { compareRuns, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, seedFrom, type LevelSamples } from '@kneeboard/analysis/compare';
import { queryLevelSamples, type Db } from '@kneeboard/clickhouse';
import type { CompareQuery, CompareResponse, Run, RunDetail } from '@kneeboard/contracts';
import { requireRunDetail } from './run-detail.ts';

/**
 * The bootstrap's seed, from the samples themselves (order-independent): the same data always
 * gets the same intervals and verdicts — a permalink, a re-run CI gate and a test alike.
 */
function seedOf(...runs: LevelSamples[][]): number {
  return seedFrom(
    ...runs.flatMap((levels) =>
      levels.map((l) => `${l.level}|${l.per_second_ok.join(',')}|${l.latencies.length}|${Math.round(l.latencies.reduce((a, b) => a + b, 0) * 1000)}`),
    ),
  );
}

/** Release labels name runs in sentences; when two compared runs share one, the name tells them apart. */
function labelFor(run: Run, all: Run[]): string {
  return all.filter((r) => r.release === run.release).length > 1 ? `${run.release} (${run.name})` : run.release;
}

/**
 * Compares each head run with the base, level by level, with intervals bootstrapped from raw
 * samples read from ClickHouse.
 */
export async function buildComparison(db: Db, query: CompareQuery): Promise<{ report: CompareResponse; details: RunDetail[] }> {
  const base = await requireRunDetail(db, query.base, 'base');
  const heads = await Promise.all(query.head.map((id) => requireRunDetail(db, id, 'head')));
  const allRuns = [base.run, ...heads.map((h) => h.run)];
  const baseSamples = { label: labelFor(base.run, allRuns), curve: base.curve, knee: base.analysis?.knee?.level ?? null, samples: await queryLevelSamples(db, base.run.id) };

  const compared = [];
  for (const head of heads) {
    const headSamples = { label: labelFor(head.run, allRuns), curve: head.curve, knee: head.analysis?.knee?.level ?? null, samples: await queryLevelSamples(db, head.run.id) };
    const result = compareRuns(baseSamples, headSamples, { minEffect: query.min_effect, seed: seedOf(baseSamples.samples, headSamples.samples), parameter: base.run.parameter });
    compared.push({ run: head.run, ...result });
  }
  return {
    report: { base: base.run, heads: compared, settings: { confidence: DEFAULT_CONFIDENCE, min_effect: query.min_effect, resamples: DEFAULT_RESAMPLES } },
    details: [base, ...heads],
  };
}
