import { endpointHeadChange, type RunGroup } from '@kneeboard/analysis/compare';
import { queryNameLevelSamples, type Db } from '@kneeboard/clickhouse';
import { MAX_COMPARED_NAMES, type EndpointChanges, type PercentileSource, type RunDetail } from '@kneeboard/contracts';
import type { CompareFn } from './compare-pool.ts';
import { groupOf, namedDetail, namedSide, type Compared } from './compare-sides.ts';
import { loadNameCurves } from './name-curves.ts';

/**
 * One run's side for each of `names`, in two grouped reads whatever the number of names: every
 * name's curve through the `/runs/{id}/names` service (one statement, kept per version of the run,
 * so a page that showed the endpoints has already paid for it) and every name's samples in one
 * statement (queryNameLevelSamples). A name's curve there is `?name=`'s point for point; it is used
 * when it was read from the source the run's own curve came from (the same choice for a finished
 * run), and a name it lacks — past the read's cap — is read on its own, as `name=` reads it.
 */
async function namedSides(db: Db, total: RunDetail, names: string[]): Promise<Map<string, Compared>> {
  const read = await loadNameCurves(db, total.run.id, 'auto', Number.MAX_SAFE_INTEGER);
  const samples = await queryNameLevelSamples(db, total.run.id, names);
  const sameSource = read !== null && read.percentiles !== null && (total.percentiles === undefined || read.percentiles === total.percentiles);
  const sides = new Map<string, Compared>();
  for (const name of names) {
    const curve = sameSource ? read.names.find((n) => n.name === name)?.curve : undefined;
    const side = curve && read?.percentiles ? namedDetail(total, name, curve, read.percentiles) : await namedSide(db, total, name, 'compared');
    sides.set(name, { ...side, samples: samples.get(name) ?? [] });
  }
  return sides;
}

/**
 * Per endpoint, when every compared run carries request names: each name all of them have, the
 * busiest (by requests over all the runs) first and at most MAX_COMPARED_NAMES, compared exactly
 * as `name=` compares it — the same curves and samples — so the summary's verdict is the one that
 * link shows. The reads are two grouped statements per run (curves, samples), not two per run and
 * name; the bootstraps stay one per head and name, bounded by the cap.
 */
export async function endpointChanges(
  db: Db,
  baseDetails: RunDetail[],
  headDetails: RunDetail[][],
  labels: string[],
  compare: (base: RunGroup, head: RunGroup) => ReturnType<CompareFn>,
): Promise<EndpointChanges | null> {
  const all = [...baseDetails, ...headDetails.flat()];
  if (all.some((d) => !d.names || d.names.length === 0)) return null;
  const requests = new Map<string, number>();
  for (const d of all) for (const n of d.names ?? []) requests.set(n.name, (requests.get(n.name) ?? 0) + n.requests);
  const shared = [...requests.entries()].filter(([name]) => all.every((d) => d.names?.some((n) => n.name === name)));
  // Busiest first; ties by name, so the same runs always compare the same names in the same order.
  shared.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const compared = shared.slice(0, MAX_COMPARED_NAMES);
  const wanted = compared.map(([name]) => name);
  // One after another: the embedded engine runs one query at a time anyway, and a server is spared a burst.
  const sidesOf = async (details: RunDetail[]) => {
    const out: Map<string, Compared>[] = [];
    for (const d of details) out.push(await namedSides(db, d, wanted));
    return out;
  };
  const baseSides = await sidesOf(baseDetails);
  const headSides: Map<string, Compared>[][] = [];
  for (const details of headDetails) headSides.push(await sidesOf(details));
  // Every side's samples are in hand: the groups below read nothing.
  const sources = new Map<string, PercentileSource>();
  const group = (sides: Map<string, Compared>[], name: string, label: string) => groupOf(db, sides.map((s) => s.get(name) as Compared), label, sources);
  const names: EndpointChanges['names'] = [];
  for (const [name, total] of compared) {
    const base = await group(baseSides, name, labels[0] as string);
    const heads = [];
    for (const [i, sides] of headSides.entries()) {
      const result = await compare(base, await group(sides, name, labels[i + 1] as string));
      heads.push(endpointHeadChange(name, result.overall.verdict, result.levels));
    }
    names.push({ name, requests: total, heads });
  }
  return { names, omitted: shared.length - compared.length };
}
