import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { ohaTool } from '../src/import/oha.ts';
import { runImport } from '../src/import/run-import.ts';
import { near, percentile, storedCounts } from './support/import-helpers.ts';
import { findTool, fixture, fixturePath, run } from './support/load-tools.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-import-oha-'));
/** `oha --output-format json`: latencies in seconds. */
const Summary = z.object({
  latencyPercentiles: z.object({ p50: z.number(), p90: z.number() }),
  statusCodeDistribution: z.record(z.string(), z.number()),
});
const LEVELS = [2, 8] as const;

let api: ApiProcess;
let target: DemoTarget;
const out: Record<number, { db: string; summary: z.infer<typeof Summary> }> = {};
let generatedBy: string;

beforeAll(async () => {
  [api, target] = await Promise.all([startApi(join(dir, 'data'), await freePort(), 90_000), startDemoTarget({ workers: 4, serviceMs: 5, jitterMs: 4, port: 0 })]);
  const oha = findTool('oha');
  generatedBy = oha ?? 'the committed samples (oha is not installed here)';
  for (const c of LEVELS) {
    const db = join(dir, `c${c}.db`);
    const summaryPath = join(dir, `c${c}.summary.json`);
    if (oha !== null) {
      const { stdout } = await run(oha, ['-c', String(c), '-n', '600', '--no-tui', '--output-format', 'json', '--db-url', db, `${target.url}/`], { timeout: 60_000 });
      writeFileSync(summaryPath, stdout);
      if (process.env.KNEEBOARD_REFRESH_FIXTURES === '1') {
        writeFileSync(fixturePath(`oha-c${c}.db.gz`), gzipSync(readFileSync(db)));
        copyFileSync(summaryPath, fixturePath(`oha-c${c}.summary.json`));
      }
    } else {
      fixture(`oha-c${c}.db.gz`, db);
      fixture(`oha-c${c}.summary.json`, summaryPath);
    }
    out[c] = { db, summary: Summary.parse(JSON.parse(readFileSync(summaryPath, 'utf8'))) };
  }
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await target?.close();
});

describe('kneeboard import oha (real oha SQLite databases, real API)', () => {
  it('imports one database per concurrency as a sweep; every request oha stored is stored', async () => {
    const r = await runImport(ohaTool, { files: LEVELS.map((c) => out[c]!.db), levels: [...LEVELS], api: api.url, run: { service: 'oha-import', release: 'sweep' } });
    const expected = Object.fromEntries(LEVELS.map((c) => [c, out[c]!.summary.statusCodeDistribution['200'] ?? 0]));
    expect(await storedCounts(api, r.runId), `oha from ${generatedBy}`).toEqual(expected);
    expect(r.files.map((f) => f.bad)).toEqual([0, 0]);
  });

  it('stores the median and p90 of oha’s own summary within 1 %', async () => {
    const r = await runImport(ohaTool, { files: [out[8]!.db], levels: [8], api: api.url, run: { service: 'oha-import', release: 'pct' } });
    const [p] = (await api.run(r.runId)).curve;
    const s = out[8]!.summary.latencyPercentiles;
    // oha takes the value at rank ⌊p·n⌋, the API interpolates between ranks: at 600 samples the
    // two agree within 1 % — unless a loaded box left a gap between neighbouring samples, and then
    // oha's value must be exactly its rank in the file and the stored one the file's interpolation.
    const sorted = await durationsMs(out[8]!.db);
    for (const [q, stored, oha] of [
      [0.5, p!.p50_ms!, s.p50 * 1000],
      [0.9, p!.p90_ms!, s.p90 * 1000],
    ] as const) {
      if (near(stored, oha, 0.01)) continue;
      expect(oha, `oha's p${q * 100} is its rank ⌊p·n⌋`).toBeCloseTo(sorted[Math.floor(q * sorted.length)]!, 6);
      expect(stored, `the stored p${q * 100} is the file's`).toBeCloseTo(percentile(sorted, q), 3);
    }
  });

  it('refuses a file that is not oha’s database, naming it', async () => {
    const notDb = join(dir, 'not.db');
    writeFileSync(notDb, 'hello');
    await expect(runImport(ohaTool, { files: [notDb], levels: [1], api: api.url, run: { service: 'oha-import', release: 'bad' } })).rejects.toThrow(/not\.db/);
  });
});

/** Every duration in an oha database, in ms, sorted: the file's own percentiles. */
async function durationsMs(path: string): Promise<number[]> {
  const sqlite = (await import('node-sqlite3-wasm')).default;
  const db = new sqlite.Database(path, { readOnly: true, fileMustExist: true });
  try {
    return db.all('SELECT duration FROM oha').map((r) => Number(r.duration) * 1000).sort((a, b) => a - b);
  } finally {
    db.close();
  }
}
