import type { EventBatch } from '@kneeboard/contracts';

/**
 * A batch body with plausible request timings, serialised once so the benchmark measures the
 * API and ClickHouse, not the sender's JSON.stringify.
 */
export function syntheticBatch(batchId: string, level: number, fromTs: number, n: number, spacingMs: number): string {
  const batch: EventBatch = {
    batch_id: batchId,
    agent_id: 'bench',
    level: new Array<number>(n).fill(level),
    ts_ms: Array.from({ length: n }, (_, i) => fromTs + i * spacingMs),
    latency_ms: Array.from({ length: n }, (_, i) => 5 + ((i * 7919) % 1000) / 37),
    compute_ms: Array.from({ length: n }, (_, i) => 4 + ((i * 104729) % 100) / 50),
    queue_ms: Array.from({ length: n }, (_, i) => ((i * 31) % 17) / 3),
    status: Array.from({ length: n }, (_, i) => (i % 500 === 0 ? 503 : 200)),
  };
  return JSON.stringify(batch);
}

export async function post(url: string, body: string): Promise<Response> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res;
}
