import { compareCapacity } from '@kneeboard/analysis';
import { endpointUrl } from '@kneeboard/api-client';
import { AnalysisWithCapacity, ENDPOINTS, formatSlos, type Capacity, type CapacityChange, type CompareResponse, type SloClause } from '@kneeboard/contracts';
import { CompareError, getOrExplain } from './resolve-run.ts';

/**
 * Capacity at the same SLOs for the comparison's base and each head (`kneeboard compare --slo …`):
 * every run of each side asked for its capacity (`GET /runs/{id}/analysis?slo=`, the API's
 * bootstrap on the run's raw samples), then compared by `compareCapacity` — from the repeats when
 * both sides have them, else from the brackets.
 */
export async function capacityChanges(report: CompareResponse, slos: readonly SloClause[], api: string, token?: string): Promise<CapacityChange[]> {
  const query = new URLSearchParams({ slo: formatSlos(slos) });
  const capacityOf = async (id: string): Promise<Capacity> => {
    const body = await getOrExplain(endpointUrl(ENDPOINTS.runAnalysis, { params: { id }, query }, api), api, AnalysisWithCapacity, 'capacity', token);
    if (!body.capacity) throw new CompareError(`capacity failed: the API answered no capacity for run ${id}`);
    return body.capacity;
  };
  const base = await Promise.all(report.base_runs.map((r) => capacityOf(r.id)));
  return Promise.all(report.heads.map(async (h) => compareCapacity(base, await Promise.all(h.runs.map((r) => capacityOf(r.id))), h.run.release)));
}
