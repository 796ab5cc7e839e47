import { ARROW_STREAM_CONTENT_TYPE, type EventBatch } from '@kneeboard/contracts';
import { allocateColumns, encodeArrowColumns, type EventColumns } from '@kneeboard/event-wire';
import { batchOf, prng } from './helpers.ts';

export const T0 = 1_800_000_000_000;

/** A step window covering [T0, T0 + 1 h) at `level`, so events there are within the run's span. */
export const stepAt = (level: number) => ({ level, started_at: T0, measure_from: T0, ended_at: T0 + 3_600_000 });

/** n events of one level with seeded random timings; the seed makes each batch's content distinct. */
export function randomBatch(batchId: string, n: number, seed: number, level = 1): EventBatch {
  const rand = prng(seed);
  return batchOf(
    Array.from({ length: n }, (_, i) => {
      const ts = T0 + (seed % 300) * 10_000 + i + rand();
      const latency = 1 + rand() * 100;
      // Parts of the request's time: never longer than it (the API refuses that).
      return {
        level,
        ts,
        latency,
        compute: rand() < 0.1 ? null : rand() * Math.min(50, latency),
        queue: rand() < 0.1 ? null : rand() * Math.min(5, latency),
        status: rand() < 0.01 ? 503 : 200,
      };
    }),
    batchId,
  );
}

/** A JSON batch's columns as the API holds them once checked (nulls as NaN). */
export function columnsOf(b: EventBatch): EventColumns {
  const c = allocateColumns(b.level.length);
  c.level.set(b.level);
  c.ts_ms.set(b.ts_ms);
  c.latency_ms.set(b.latency_ms);
  c.compute_ms.set(b.compute_ms.map((v) => v ?? Number.NaN));
  c.queue_ms.set(b.queue_ms.map((v) => v ?? Number.NaN));
  c.status.set(b.status);
  return c;
}

/** The canonical Arrow stream of a JSON batch (what the SDK sends). */
export function arrowOf(b: EventBatch): Uint8Array {
  return encodeArrowColumns(columnsOf(b));
}

export async function postArrow(apiUrl: string, runId: string, bytes: Uint8Array, query: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${apiUrl}/api/v1/runs/${runId}/events?${new URLSearchParams(query)}`, {
    method: 'POST',
    headers: { 'content-type': ARROW_STREAM_CONTENT_TYPE },
    body: bytes,
  });
  return { status: res.status, body: await res.json() };
}
