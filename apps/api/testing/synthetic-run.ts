import { endpointPath, ENDPOINTS, type StepHealth } from '@kneeboard/contracts';
import { prng } from '@kneeboard/analysis/testing';
import { batchOf, createRun, postJson } from './http.ts';

export interface SyntheticRunOptions {
  seed: number;
  service?: string;
  release: string;
  name?: string;
  /** The swept parameter's name (default concurrency). */
  parameter?: string;
  levels?: number[];
  workers?: number;
  serviceMs?: number;
  /** Scale the true throughput and latency, to make a known regression or improvement. */
  qpsScale?: number;
  latencyScale?: number;
  seconds?: number;
  /** The agent's health report per level, posted with the step (e.g. a generator-limited flag). */
  health?: Record<number, StepHealth>;
}

/**
 * Stores a finished closed-loop run of a W-worker, S-ms server through the real API: per level a
 * window of requests at the true QPS min(N, W)·1000/S (× qpsScale) with lognormal latencies around
 * the true median max(S, N·S/W) (× latencyScale), compute S and the rest queue. Seeded: the same
 * options give the same rows.
 */
export async function storeSyntheticRun(apiUrl: string, o: SyntheticRunOptions): Promise<string> {
  const levels = o.levels ?? [1, 2, 4, 8, 16];
  const workers = o.workers ?? 4;
  const serviceMs = o.serviceMs ?? 20;
  const seconds = o.seconds ?? 5;
  const runId = await createRun(apiUrl, { service: o.service ?? 'synthetic', release: o.release, ...(o.name === undefined ? {} : { name: o.name }), ...(o.parameter === undefined ? {} : { parameter: o.parameter }) });
  const rand = prng(o.seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const t0 = 1_800_000_000_000 + o.seed * 1_000_000;
  const windowMs = seconds * 1000;
  const from = (i: number) => t0 + i * (windowMs + 1000);
  const rows = levels.flatMap((level, i) => {
    const qps = ((Math.min(level, workers) * 1000) / serviceMs) * (o.qpsScale ?? 1);
    const median = Math.max(serviceMs, (level * serviceMs) / workers) * (o.latencyScale ?? 1);
    const n = Math.round(qps * seconds);
    return Array.from({ length: n }, (_, k) => {
      const latency = median * Math.exp(0.25 * gaussian());
      return { level, ts: from(i) + ((k + rand()) * windowMs) / n, latency, compute: Math.min(latency, serviceMs), queue: Math.max(0, latency - serviceMs) };
    });
  });
  await Promise.all(levels.map((level, i) => postJson(`${apiUrl}${endpointPath(ENDPOINTS.postStep, { id: runId })}`, { level, started_at: from(i), measure_from: from(i), ended_at: from(i) + windowMs, health: o.health?.[level] ?? null })));
  for (let i = 0; i < rows.length; i += 50_000) {
    const res = await postJson(`${apiUrl}${endpointPath(ENDPOINTS.postEvents, { id: runId })}`, batchOf(rows.slice(i, i + 50_000), `synthetic-${i}`));
    if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await postJson(`${apiUrl}${endpointPath(ENDPOINTS.finishRun, { id: runId })}`, {});
  return runId;
}
