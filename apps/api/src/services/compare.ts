import { capacityUnderSlos, compareCapacity } from '@kneeboard/analysis';
import { compareCost, compareGroups, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, pooledCapacity, seedFrom, type LevelSamples, type RunGroup } from '@kneeboard/analysis/compare';
import { createHash } from 'node:crypto';
import { cacheOf, type Db } from '@kneeboard/clickhouse';
import type { Capacity, CapacityChange, CompareResponse, HeadComparison, PercentileSource, Run, RunCost, RunDetail, SloClause } from '@kneeboard/contracts';
import { endpointChanges } from './compare-endpoints.ts';
import type { CompareFn } from './compare-pool.ts';
import type { ResolvedCompare } from './compare-refs.ts';
import { groupOf, namedSide, wholeRun, type Compared } from './compare-sides.ts';
import { requireRunDetail } from './run-detail.ts';
import { loadRunCost } from './run-cost.ts';
import { newerBasis, serviceRunToRunNoise, type NoiseHistory } from './run-to-run-history.ts';

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

/**
 * Release labels name groups in sentences; when two compared groups share one, the first run's
 * name tells them apart (or its id, for runs without a name).
 */
function labelFor(runs: Run[], all: Run[][]): string {
  const first = runs[0] as Run;
  const clash = all.filter((g) => g[0]?.release === first.release).length > 1;
  const repeats = runs.length > 1 ? ` ×${runs.length}` : '';
  return clash ? `${first.release} (${first.name || first.id.slice(0, 8)})${repeats}` : `${first.release}${repeats}`;
}

/**
 * Compares each head group with the base group, level by level, with intervals bootstrapped over
 * runs and the raw samples within them. Where a side has one run, the service's run-to-run noise
 * from earlier repeats (if any) widens its intervals; levels where an agent was the limit are
 * flagged and get no verdict.
 */
export async function buildComparison(
  db: Db,
  query: ResolvedCompare,
  // The bootstrap; the API runs it in worker threads (compare-pool.ts) so it cannot stall other requests.
  compare: CompareFn = async (base, head, options) => compareGroups(base, head, options),
): Promise<{ report: CompareResponse; details: RunDetail[] }> {
  const baseTotals = await Promise.all(query.base.map((id) => requireRunDetail(db, id, 'base')));
  const headTotals = await Promise.all(query.head.map((group) => Promise.all(group.map((id) => requireRunDetail(db, id, 'head')))));
  // With `name=`, every side is that name's curve (a run without it: 404 naming `name`).
  const { name } = query;
  const side = (d: RunDetail, field: string) => (name === undefined ? Promise.resolve(wholeRun(d)) : namedSide(db, d, name, field));
  const baseSides = await Promise.all(baseTotals.map((d) => side(d, 'base')));
  const headSides = await Promise.all(headTotals.map((g) => Promise.all(g.map((d) => side(d, 'head')))));
  const baseDetails = baseSides.map((s) => s.detail);
  const headDetails = headSides.map((g) => g.map((s) => s.detail));
  const anySingle = [baseDetails, ...headDetails].some((g) => g.length === 1);
  // A single-run side borrows the service's run-to-run noise: the basis the query pinned
  // (noise_asof), else the newest. A newer basis than a pinned one is only offered (`noise.newer`).
  const service = baseDetails[0]!.run.service;
  const current = anySingle ? await serviceRunToRunNoise(db, service) : null;
  const history = anySingle && query.noise_asof !== undefined ? await serviceRunToRunNoise(db, service, query.noise_asof) : current;
  const newer = history && current && query.noise_asof !== undefined ? newerBasis(history, current) : null;
  const details = [...baseDetails, ...headDetails.flat()];
  // What each run cost the server: read before the cache, since server metrics can arrive for a
  // finished run without moving its curve.
  const costs = new Map(await Promise.all(details.map(async (d): Promise<[string, RunCost]> => [d.run.id, await loadRunCost(db, d)])));
  // The report is a function of the query, the runs, their windows and curves (whose counts move
  // with any stored event in a window, the only events samples are drawn from), their costs and
  // the noise; the bootstrap's seed comes from the samples. So the same inputs give the same report: keep it.
  const key = createHash('sha256')
    .update(JSON.stringify([{ ...query, noise_asof: undefined }, details.map((d) => [d.run, d.steps, d.curve, d.percentiles, costs.get(d.run.id)]), history]))
    .digest('hex');
  const cache = cacheOf<CompareResponse>(db, 'comparison', 64);
  const report = cache.get('report', key) ?? (await computeReport(db, query, baseSides, headSides, history, compare, costs));
  cache.set('report', key, report);
  return { report: newer ? { ...report, heads: report.heads.map((h) => ({ ...h, noise: { ...h.noise, newer } })) } : report, details };
}

async function computeReport(
  db: Db,
  query: ResolvedCompare,
  baseSides: Compared[],
  headSides: Compared[][],
  history: NoiseHistory | null,
  compare: CompareFn,
  costs: ReadonlyMap<string, RunCost>,
): Promise<CompareResponse> {
  const baseDetails = baseSides.map((s) => s.detail);
  const headDetails = headSides.map((g) => g.map((s) => s.detail));
  const allGroups = [baseDetails, ...headDetails].map((g) => g.map((d) => d.run));
  const labels = allGroups.map((g) => labelFor(g, allGroups));
  const sources = new Map<string, PercentileSource>();
  const base = await groupOf(db, baseSides, labels[0] as string, sources);
  const parameter = baseDetails[0]!.run.parameter;
  const slos = query.slo && query.slo.length > 0 ? query.slo : null;
  const baseCapacity = slos ? sideCapacity(base, slos, parameter, sources) : null;
  const costsOf = (details: RunDetail[]) => details.map((d) => costs.get(d.run.id) as RunCost);
  const heads: HeadComparison[] = [];
  const options = (base: RunGroup, head: RunGroup) => ({
    minEffect: query.min_effect,
    seed: seedOf(...[...base.runs, ...head.runs].map((r) => r.samples)),
    parameter,
    runToRun: history?.noise ?? null,
    history: history && history.asof !== null ? { runs: history.runs, asof: history.asof } : null,
  });
  for (const [i, details] of headDetails.entries()) {
    const head = await groupOf(db, headSides[i] as Compared[], labels[i + 1] as string, sources);
    const result = await compare(base, head, options(base, head));
    const capacity: CapacityChange | null = slos && baseCapacity ? capacityChange(baseCapacity, sideCapacity(head, slos, parameter, sources), head.label) : null;
    // What the server spent is the whole run's: set against one name's throughput it would mislead.
    const cost = query.name === undefined ? compareCost(costsOf(baseDetails), costsOf(details), result.levels, parameter) : null;
    heads.push({ run: details[0]!.run, runs: details.map((d) => d.run), ...result, ...(capacity ? { capacity } : {}), ...(cost ? { cost } : {}) });
  }
  const endpoints = query.name === undefined ? await endpointChanges(db, baseDetails, headDetails, labels, (b, h) => compare(b, h, options(b, h))) : null;
  return {
    base: baseDetails[0]!.run,
    base_runs: baseDetails.map((d) => d.run),
    heads,
    settings: { confidence: DEFAULT_CONFIDENCE, min_effect: query.min_effect, resamples: DEFAULT_RESAMPLES, samples: [...sources.values()].includes('rollup') ? 'rollup' : 'exact' },
    ...(query.name === undefined ? {} : { name: query.name }),
    ...(endpoints ? { endpoints } : {}),
  };
}

interface SideCapacity {
  /** Each run's own capacity, exactly as `GET /runs/{id}/analysis?slo=` answers it (same samples, flags and seed). */
  runs: Capacity[];
  /** The side's one decision: a single run's own, or every repeat's samples pooled level by level. */
  decision: Capacity;
}

/**
 * A side's capacity under the SLOs, from the samples the comparison already read: each run's as
 * runCapacity computes it, and — with repeats — the decision on their pooled samples.
 */
function sideCapacity(group: RunGroup, slos: SloClause[], parameter: string, sources: ReadonlyMap<string, PercentileSource>): SideCapacity {
  const runs = group.runs.map((r) =>
    capacityUnderSlos({ curve: r.curve, slos, parameter, samples: r.samples, samplesSource: sources.get(r.run_id) ?? 'exact', flags: r.flags ?? new Map(), seed: seedFrom(r.run_id, 'capacity') }),
  );
  if (group.runs.length === 1) return { runs, decision: runs[0]! };
  const pooled = group.runs.map((r) => ({ curve: r.curve, samples: r.samples, flags: r.flags ?? new Map<number, string>() }));
  return { runs, decision: pooledCapacity(pooled, slos, parameter, seedFrom(...group.runs.map((r) => r.run_id), 'capacity')) };
}

const capacityChange = (base: SideCapacity, head: SideCapacity, headLabel: string): CapacityChange => compareCapacity(base.runs, head.runs, headLabel, { base: base.decision, head: head.decision });
