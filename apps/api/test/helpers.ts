import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDb, type Db } from '@kneeboard/clickhouse';
import type { CreateRunInput, EventBatch } from '@kneeboard/contracts';
import { buildApp, type KneeboardApp } from '../src/app.ts';

export interface TestApi {
  app: KneeboardApp;
  db: Db;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/** The real API on the real embedded ClickHouse, in a fresh data directory, listening on 127.0.0.1. */
export async function startTestApi(): Promise<TestApi> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kb-api-test-'));
  const db = openDb({ mode: 'embedded', path: dataDir });
  await migrate(db);
  const app = await buildApp({ db });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    db,
    url,
    dataDir,
    async close() {
      await app.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function createRun(baseUrl: string, body: Partial<CreateRunInput> = {}): Promise<string> {
  const res = await postJson(`${baseUrl}/api/v1/runs`, { service: 'checkout', release: 'v1.0.0', ...body });
  if (res.status !== 201) throw new Error(`create run failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}

/** A deterministic PRNG (mulberry32), so data sets are random-looking but reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function batchOf(rows: Array<{ level: number; ts: number; latency: number; compute?: number | null; queue?: number | null; status?: number }>, batchId: string): EventBatch {
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

/** Percentile by linear interpolation between order statistics (numpy's default, R type 7). */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const xs = [...values].sort((a, b) => a - b);
  const h = (xs.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, xs.length - 1);
  return (xs[lo] as number) + (h - lo) * ((xs[hi] as number) - (xs[lo] as number));
}
