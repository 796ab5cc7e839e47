import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gatlingTool } from '../src/import/gatling.ts';
import { readGatlingBinary } from '../src/import/gatling-binary.ts';
import { runImport, sniffFormat } from '../src/import/run-import.ts';
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

/** Gatling's own numbers for a run: from js/stats.json (3.11) or js/stats.js (3.13, a script whose values are strings). */
function gatlingReport(text: string): { total: number; ko: number; mean: number; p50: number } {
  const value = (key: string, field: string) => Number(new RegExp(`"${key}":\\s*\\{[^}]*?"${field}":\\s*"?(\\d+)`).exec(text)![1]);
  return { total: value('numberOfRequests', 'total'), ko: value('numberOfRequests', 'ko'), mean: value('meanResponseTime', 'total'), p50: value('percentiles1', 'total') };
}

// Newer Gatlings, run here through Maven (test/fixtures/gatling/README.md): 3.11 still writes the
// text log (in its own field order), 3.13 and later a binary one, decoded here.
describe.each([
  { version: '3.11.5', log: 'gatling-3.11-steps.simulation.tsv', report: 'gatling-3.11-steps.stats.json', format: 'gatling' },
  { version: '3.13.5', log: 'gatling-3.13-steps.simulation.bin', report: 'gatling-3.13-steps.stats-js.txt', format: 'gatling:binary' },
])('kneeboard import gatling: the simulation.log of Gatling $version', ({ version, log: name, report, format }) => {
  it('stores every request Gatling counted, at the user counts it ran, with its mean and (t-digest) median', async () => {
    const file = fixture(name, join(dir, name));
    const g = gatlingReport(readFileSync(fixture(report, join(dir, report)), 'utf8'));
    const r = await runImport(gatlingTool, { files: [file], api: api.url, run: { service: 'gatling-import', release: `v${version}` } });
    expect((await sniffFormat(gatlingTool, [file])).identity).toBe(format);
    const stored = await storedCounts(api, r.runId);
    expect(total(stored)).toBe(g.total);
    expect(Object.keys(stored).map(Number).every((l) => [1, 2, 3, 4].includes(l))).toBe(true);
    expect(r.files[0]!.bad).toBe(0);
    const one = await runImport(gatlingTool, { files: [file], levels: [4], api: api.url, run: { service: 'gatling-import', release: `v${version}-one` } });
    const [p] = (await api.run(one.runId)).curve;
    expect([p!.requests, p!.errors]).toEqual([g.total, g.ko]);
    // Gatling rounds its mean to whole ms; its percentiles are t-digest estimates (compression
    // 100), which for a few hundred samples may sit one order statistic away from the exact value.
    expect(Math.round(p!.mean_ms!)).toBe(g.mean);
    expect(Math.abs(p!.p50_ms! - g.p50) <= Math.max(1, 0.01 * g.p50), `p50 ${p!.p50_ms} vs Gatling ${g.p50}`).toBe(true);
  });
});

describe('kneeboard import gatling: a binary simulation.log cut off mid-record (Gatling killed)', () => {
  it('stores every whole request before the cut and reports the cut', async () => {
    const whole = readFileSync(fixture('gatling-3.13-steps.simulation.bin', join(dir, 'whole.bin')));
    const cut = join(dir, 'cut.bin');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    let before = 0;
    await readGatlingBinary(cut, (rec) => void (rec.kind === 'request' && before++));
    const r = await runImport(gatlingTool, { files: [cut], levels: [4], api: api.url, run: { service: 'gatling-import', release: 'cut' } });
    expect(before).toBeGreaterThan(0);
    expect(r.files[0]!.events).toBe(before);
    expect([r.files[0]!.bad, r.files[0]!.badExamples[0]?.reason]).toEqual([1, expect.stringMatching(/cut off/)]);
    expect(total(await storedCounts(api, r.runId))).toBe(before);
  });
});
