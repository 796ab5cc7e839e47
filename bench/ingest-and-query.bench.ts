/**
 * Ingest throughput into the embedded ClickHouse through the real HTTP API, and the curve query
 * time for a run of 1,000,000 requests, and a comparison of two such runs.
 *
 *   pnpm tsx bench/ingest-and-query.bench.ts [--events 1000000] [--batch 10000] [--senders 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '@kneeboard/api/testing';
import { quantile, report } from './lib/report.ts';
import { post, syntheticBatch } from './lib/synthetic.ts';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, batch: { type: 'string', default: '10000' }, senders: { type: 'string', default: '2' }, levels: { type: 'string', default: '10' } },
});
const totalEvents = Number(values.events);
const batchSize = Number(values.batch);
const senders = Number(values.senders);
const levels = Number(values.levels);

const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-ingest-'));
const api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir });
try {
  const { id } = (await (await post(`${api.url}/api/v1/runs`, JSON.stringify({ service: 'bench', release: 'ingest' }))).json()) as { id: string };
  const t0 = 1_800_000_000_000;
  const perLevel = Math.ceil(totalEvents / levels);
  const spacing = 0.05; // 20,000 req/s per level
  for (let l = 1; l <= levels; l++) {
    const start = t0 + (l - 1) * perLevel * spacing;
    await post(`${api.url}/api/v1/runs/${id}/steps`, JSON.stringify({ level: l, started_at: start, measure_from: start, ended_at: start + perLevel * spacing }));
  }

  const jobs: Array<{ body: string }> = [];
  for (let l = 1; l <= levels; l++) {
    const start = t0 + (l - 1) * perLevel * spacing;
    for (let i = 0; i < perLevel; i += batchSize) {
      const n = Math.min(batchSize, perLevel - i);
      jobs.push({ body: syntheticBatch(`l${l}-${i}`, l, start + i * spacing, n, spacing) });
    }
  }

  const batchMs: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++] as { body: string };
        const t = performance.now();
        await post(`${api.url}/api/v1/runs/${id}/events`, job.body);
        batchMs.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const ingested = perLevel * levels;

  const queryMs: number[] = [];
  let points = 0;
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const detail = (await (await fetch(`${api.url}/api/v1/runs/${id}`)).json()) as { curve: Array<{ requests: number }> };
    queryMs.push(performance.now() - t);
    points = detail.curve.reduce((s, p) => s + p.requests, 0);
  }
  if (points !== ingested) throw new Error(`curve counts ${points} requests, ingested ${ingested}`);

  // A second run of the same size, to time a release comparison of two 1M-request runs.
  const { id: headId } = (await (await post(`${api.url}/api/v1/runs`, JSON.stringify({ service: 'bench', release: 'ingest-2' }))).json()) as { id: string };
  for (let l = 1; l <= levels; l++) {
    const start = t0 + (l - 1) * perLevel * spacing;
    await post(`${api.url}/api/v1/runs/${headId}/steps`, JSON.stringify({ level: l, started_at: start, measure_from: start, ended_at: start + perLevel * spacing }));
  }
  for (const job of jobs) await post(`${api.url}/api/v1/runs/${headId}/events`, job.body);
  const compareMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const res = await fetch(`${api.url}/api/v1/compare?base=${id}&head=${headId}`);
    if (!res.ok) throw new Error(`compare: ${res.status}`);
    await res.json();
    compareMs.push(performance.now() - t);
  }

  report(
    'ingest-and-query',
    [
      { measure: 'ingest events/s (HTTP JSON → chDB)', value: Math.round(ingested / seconds), detail: `${ingested} events, ${jobs.length} batches of ${batchSize}, ${senders} senders, ${seconds.toFixed(1)} s` },
      { measure: 'batch round trip p50 ms', value: quantile(batchMs, 0.5), detail: `${batchSize} events per batch` },
      { measure: 'batch round trip p99 ms', value: quantile(batchMs, 0.99), detail: '' },
      { measure: 'curve query p50 ms (GET /runs/{id})', value: quantile(queryMs, 0.5), detail: `${ingested} requests, ${levels} levels, exact percentiles` },
      { measure: 'curve query max ms', value: Math.max(...queryMs), detail: '10 runs' },
      { measure: 'compare p50 ms (GET /compare)', value: quantile(compareMs, 0.5), detail: `two runs of ${ingested} requests, ${levels} levels, bootstrap intervals` },
    ],
    { events: ingested, batch_size: batchSize, senders },
  );
} finally {
  await api.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
