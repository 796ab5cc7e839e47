import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gatlingTool } from '../src/import/gatling.ts';
import { runImport } from '../src/import/run-import.ts';
import { near, storedCounts, total } from './support/import-helpers.ts';
import { fixture } from './support/load-tools.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

// A simulation.log written by Gatling 3.10.5 here (see test/fixtures/gatling/README.md) and the
// numbers of Gatling's own report of it (js/stats.json): a Gatling run needs a JVM, Maven and a
// compile, too heavy for each test run.
const dir = mkdtempSync(join(tmpdir(), 'kb-import-gatling-'));
const Stats = z.object({
  stats: z.object({
    numberOfRequests: z.object({ total: z.number(), ko: z.number() }),
    percentiles1: z.object({ total: z.number() }),
  }),
});

let api: ApiProcess;
let log: string;
let stats: z.infer<typeof Stats>['stats'];

beforeAll(async () => {
  api = await startApi(join(dir, 'data'), await freePort(), 90_000);
  log = fixture('gatling-steps.simulation.tsv', join(dir, 'simulation.log'));
  stats = Stats.parse(JSON.parse(readFileSync(fixture('gatling-steps.stats.json', join(dir, 'stats.json')), 'utf8'))).stats;
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

describe('kneeboard import gatling (a real simulation.log, real API)', () => {
  it('recovers the closed injection steps 1, 2, 4 users from the USER records; every request Gatling counted is stored', async () => {
    const r = await runImport(gatlingTool, { files: [log], api: api.url, run: { service: 'gatling-import', release: 'steps' } });
    const stored = await storedCounts(api, r.runId);
    expect(Object.keys(stored).map(Number)).toEqual([1, 2, 4]);
    expect(total(stored)).toBe(stats.numberOfRequests.total);
    expect(r.files[0]!.bad).toBe(0);
    const detail = await api.run(r.runId);
    expect(detail.curve.reduce((n, p) => n + p.errors, 0)).toBe(stats.numberOfRequests.ko);
    expect(detail.run.parameter).toBe('users');
  });

  it('stores the median of Gatling’s own report within 1 % (all requests as one level)', async () => {
    const r = await runImport(gatlingTool, { files: [log], levels: [4], api: api.url, run: { service: 'gatling-import', release: 'one-level' } });
    const [p] = (await api.run(r.runId)).curve;
    expect(p!.requests).toBe(stats.numberOfRequests.total);
    // Gatling reports whole milliseconds; its log has whole milliseconds too.
    expect(near(p!.p50_ms, stats.percentiles1.total, 0.01) || Math.abs(p!.p50_ms! - stats.percentiles1.total) <= 0.5, `p50 ${p!.p50_ms} vs Gatling ${stats.percentiles1.total}`).toBe(true);
  });
});
