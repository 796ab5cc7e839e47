import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { csvFields } from '../src/import/csv-fields.ts';
import { jmeterTool } from '../src/import/jmeter.ts';
import { runImport } from '../src/import/run-import.ts';
import { near, storedCounts, total } from './support/import-helpers.ts';
import { fixture } from './support/load-tools.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

// A JTL written by JMeter 5.6.3 here (see test/fixtures/jmeter/README.md) and JMeter's own
// HTML-report statistics of it: a JMeter run needs a JVM and Maven, too heavy for each test run.
const dir = mkdtempSync(join(tmpdir(), 'kb-import-jmeter-'));
const Stats = z.object({
  Total: z.object({ sampleCount: z.number(), errorCount: z.number(), medianResTime: z.number(), pct1ResTime: z.number() }),
});

let api: ApiProcess;
let jtl: string;
let stats: z.infer<typeof Stats>['Total'];

beforeAll(async () => {
  api = await startApi(join(dir, 'data'), await freePort(), 90_000);
  jtl = fixture('jmeter-ramp.jtl', join(dir, 'ramp.jtl'));
  stats = Stats.parse(JSON.parse(readFileSync(fixture('jmeter-ramp.statistics.json', join(dir, 'stats.json')), 'utf8'))).Total;
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

describe('kneeboard import jmeter (a real JTL, real API)', () => {
  it('takes each sample’s allThreads as its level: a 4-thread ramp-up is steps 1–4, and every sample JMeter counted is stored', async () => {
    const r = await runImport(jmeterTool, { files: [jtl], api: api.url, run: { service: 'jmeter-import', release: 'ramp' } });
    // The JTL's own column, counted here independently.
    const rows = readFileSync(jtl, 'utf8').trim().split('\n').slice(1).map((l) => csvFields(l)!);
    const byThreads: Record<number, number> = {};
    for (const f of rows) byThreads[Number(f[12])] = (byThreads[Number(f[12])] ?? 0) + 1;
    const stored = await storedCounts(api, r.runId);
    expect(Object.keys(stored).map(Number)).toEqual([1, 2, 3, 4]);
    expect(stored).toEqual(byThreads);
    expect(total(stored)).toBe(stats.sampleCount);
    expect(r.files[0]!.skipped).toBe(1); // the header
    const detail = await api.run(r.runId);
    expect(detail.run.parameter).toBe('threads');
    expect(detail.curve.reduce((n, p) => n + p.errors, 0)).toBe(stats.errorCount);
  });

  it('stores the median and p90 of JMeter’s own report within 1 % (all samples as one level)', async () => {
    const r = await runImport(jmeterTool, { files: [jtl], levels: [4], api: api.url, run: { service: 'jmeter-import', release: 'one-level' } });
    const [p] = (await api.run(r.runId)).curve;
    expect(p!.requests).toBe(stats.sampleCount);
    expect(near(p!.p50_ms, stats.medianResTime, 0.01), `p50 ${p!.p50_ms} vs JMeter ${stats.medianResTime}`).toBe(true);
    expect(near(p!.p90_ms, stats.pct1ResTime, 0.01), `p90 ${p!.p90_ms} vs JMeter ${stats.pct1ResTime}`).toBe(true);
  });

  it('reads the XML JTL too (JMeter 5.5, fixtures/jmeter-ramp.xml.jtl): every sample its summariser counted, levels from na', async () => {
    const xml = fixture('jmeter-ramp.xml.jtl', join(dir, 'ramp.xml.jtl'));
    // JMeter's own end-of-test summariser line for that run: "summary = 237 in … Err: 0".
    const summary = /summary =\s+(\d+) in .* Err:\s+(\d+)/.exec(readFileSync(fixture('jmeter-ramp.xml.summary.txt', join(dir, 'summary.txt')), 'utf8'))!;
    const r = await runImport(jmeterTool, { files: [xml], api: api.url, run: { service: 'jmeter-import', release: 'xml' } });
    // Counted here independently: each top-level sample's na attribute.
    const byThreads: Record<number, number> = {};
    for (const m of readFileSync(xml, 'utf8').matchAll(/^<httpSample [^>]* na="(\d+)"/gm)) byThreads[Number(m[1])] = (byThreads[Number(m[1])] ?? 0) + 1;
    // The curve as CSV: this run's shape (one sample at 1 thread during the ramp-down) trips the
    // run detail's USL analysis, so the export is read rather than GET /runs/:id.
    const csv = (await (await fetch(`${api.url}/api/v1/runs/${r.runId}/curve.csv`)).text()).trim().split('\n').slice(1).map((l) => l.split(','));
    const stored = Object.fromEntries(csv.map((f) => [Number(f[0]), Number(f[1])]));
    expect(stored).toEqual(byThreads);
    expect(total(stored)).toBe(Number(summary[1]));
    expect(r.files[0]!.bad).toBe(0);
    expect(csv.reduce((n, f) => n + Number(f[2]), 0)).toBe(Number(summary[2]));
    // JMeter's Avg is whole ms.
    expect(Math.round(csv.reduce((n, f) => n + Number(f[1]) * Number(f[5]), 0) / Number(summary[1]))).toBe(Number(/Avg:\s+(\d+)/.exec(summary[0])![1]));
  });

  it('reads Server-Timing from an XML JTL saved with responseHeaders=true: compute/queue per sample, the run spanning the file', async () => {
    // JMeter's layout (XStream: CR as &#xd;, one header per line), written here: 40 samples, one a
    // second apart in ts, compute 10 + i % 10 ms, queue 1.5 ms, the sample 30 ms.
    const t0 = Date.UTC(2026, 10, 20, 4, 19, 59, 900);
    const samples = Array.from({ length: 40 }, (_, i) =>
      [
        `<httpSample t="30" it="0" lt="29" ct="1" ts="${t0 + i * 250}" s="true" lb="get" rc="200" rm="OK" tn="tg 1-1" dt="text" by="10" sby="10" ng="2" na="2">`,
        '  <responseHeader class="java.lang.String">HTTP/1.1 200 OK&#xd;',
        'Content-Type: text/plain&#xd;',
        `Server-Timing: queue;dur=1.5, compute;desc=&quot;x, y&quot;;dur=${10 + (i % 10)}&#xd;`,
        '</responseHeader>',
        '  <java.net.URL>http://127.0.0.1:4199/</java.net.URL>',
        '</httpSample>',
      ].join('\n'),
    );
    const xml = join(dir, 'timing.xml.jtl');
    writeFileSync(xml, ['<?xml version="1.0" encoding="UTF-8"?>', '<testResults version="1.2">', ...samples, '</testResults>', ''].join('\n'));
    const r = await runImport(jmeterTool, { files: [xml], api: api.url, run: { service: 'jmeter-import', release: 'timing' } });
    const detail = await api.run(r.runId);
    const [p] = detail.curve;
    expect(p!.requests).toBe(40);
    expect(p!.queue_p50_ms).toBeCloseTo(1.5, 6);
    expect(p!.compute_p50_ms).toBeCloseTo(14.5, 6); // 10…19, four of each: the median interpolates 14 and 15
    expect([detail.run.created_at, detail.run.finished_at]).toEqual([t0, t0 + 39 * 250 + 30]);
  });
});
