import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDb, type Db } from '@kneeboard/clickhouse';
import { buildApp, type KneeboardApp } from '../src/app.ts';

export { batchOf, createRun, postJson, prng, storeSyntheticRun } from '../src/testing/index.ts';

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

/** Percentile by linear interpolation between order statistics (numpy's default, R type 7). */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const xs = [...values].sort((a, b) => a - b);
  const h = (xs.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, xs.length - 1);
  return (xs[lo] as number) + (h - lo) * ((xs[hi] as number) - (xs[lo] as number));
}
