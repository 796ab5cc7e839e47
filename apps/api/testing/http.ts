import { endpointPath, ENDPOINTS, type CreateRunInput, type EventBatch } from '@kneeboard/contracts';

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function createRun(baseUrl: string, body: Partial<CreateRunInput> = {}): Promise<string> {
  const res = await postJson(`${baseUrl}${endpointPath(ENDPOINTS.createRun, {})}`, { service: 'checkout', release: 'v1.0.0', ...body });
  if (res.status !== 201) throw new Error(`create run failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}

export interface EventRow {
  level: number;
  ts: number;
  latency: number;
  compute?: number | null;
  queue?: number | null;
  status?: number;
}

export function batchOf(rows: EventRow[], batchId: string): EventBatch {
  return {
    batch_id: batchId,
    agent_id: 'test-agent',
    level: rows.map((r) => r.level),
    ts_ms: rows.map((r) => r.ts),
    latency_ms: rows.map((r) => r.latency),
    compute_ms: rows.map((r) => r.compute ?? null),
    queue_ms: rows.map((r) => r.queue ?? null),
    status: rows.map((r) => r.status ?? 200),
  };
}
