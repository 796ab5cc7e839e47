import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { KneeboardApi } from '@kneeboard/agent-sdk';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { runImport } from '../src/import/run-import.ts';
import { k6Tool } from '../src/import/k6.ts';
import { findTool, fixture, fixturePath, run } from './support/load-tools.ts';
import { k6Requests, near, runsWithKey, storedCounts, total } from './support/import-helpers.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';
import { runCli } from './support/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-import-k6-'));
const SCRIPT = fixturePath('k6-ramp.js');
const Summary = z.object({
  metrics: z.object({
    http_reqs: z.object({ values: z.object({ count: z.number() }) }),
    http_req_duration: z.object({ values: z.object({ 'p(50)': z.number(), 'p(90)': z.number(), 'p(99)': z.number(), count: z.number() }) }),
  }),
});

let api: ApiProcess;
let target: DemoTarget;
/** The ramp's k6 JSON output and k6's own end-of-test summary of it. */
let output: string;
let summary: z.infer<typeof Summary>['metrics'];
let generatedBy: string;

beforeAll(async () => {
  [api, target] = await Promise.all([
    startApi(join(dir, 'data'), await freePort(), 90_000),
    // 2 workers with jittered service times: latencies spread out, and queueing once VUs pass 2.
    startDemoTarget({ workers: 2, serviceMs: 5, jitterMs: 4, port: 0 }),
  ]);
  output = join(dir, 'ramp.json');
  const summaryPath = join(dir, 'summary.json');
  const k6 = findTool('k6');
  if (k6 !== null) {
    await run(k6, ['run', '--quiet', '--out', `json=${output}`, SCRIPT], {
      env: { ...process.env, TARGET: `${target.url}/`, SUMMARY: summaryPath, K6_NO_USAGE_REPORT: 'true' },
      timeout: 60_000,
    });
    generatedBy = `k6 at ${k6}`;
    // KNEEBOARD_REFRESH_FIXTURES=1 keeps this run as the sample for machines without k6.
    if (process.env.KNEEBOARD_REFRESH_FIXTURES === '1') {
      writeFileSync(fixturePath('k6-ramp.json.gz'), gzipSync(readFileSync(output)));
      copyFileSync(summaryPath, fixturePath('k6-ramp.summary.json'));
    }
  } else {
    fixture('k6-ramp.json.gz', output);
    fixture('k6-ramp.summary.json', summaryPath);
    generatedBy = 'the committed sample (k6 is not installed here)';
  }
  summary = Summary.parse(JSON.parse(readFileSync(summaryPath, 'utf8'))).metrics;
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await target?.close();
});

const common = (release: string) => ({ api: api.url, run: { service: 'k6-import', release } });

describe('kneeboard import k6 (real k6 output, real API on embedded ClickHouse)', () => {
  it('recovers the four levels of a ramping-VUs script from the vus samples; every request k6 counted is stored once', async () => {
    const cli = runCli(['import', 'k6', output, '--service', 'k6-import', '--release', 'ramp', '--api', api.url, '--json'], 60_000);
    const { code, stdout, stderr } = await cli.done;
    expect(code, `${stderr}\n(k6 output from ${generatedBy})`).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.levels.map((l: { level: number }) => l.level)).toEqual([1, 2, 4, 8]);
    const stored = await storedCounts(api, report.runId);
    expect(Object.keys(stored).map(Number)).toEqual([1, 2, 4, 8]);
    for (const level of [1, 2, 4, 8]) expect(stored[level]).toBeGreaterThan(0);
    // k6's own total, from its end-of-test summary.
    expect(total(stored)).toBe(summary.http_reqs.values.count);
    expect(report.files[0].events).toBe(summary.http_reqs.values.count);
    expect(report.files[0].bad).toBe(0);
    // More VUs, more requests per second, up to the target's 2 workers.
    const detail = await api.run(report.runId);
    const qps = Object.fromEntries(detail.curve.map((p) => [p.level, p.qps]));
    expect(qps[2]!).toBeGreaterThan(qps[1]! * 1.3);
    expect(detail.run.load_model).toBe('closed');
    expect(detail.run.parameter).toBe('vus');
  });

  it('stores the percentiles k6 reported, within 1 % (all requests as one level)', async () => {
    const r = await runImport(k6Tool(), { files: [output], levels: [1], ...common('one-level') });
    const [point] = (await api.run(r.runId)).curve;
    const k = summary.http_req_duration.values;
    expect(point!.requests).toBe(k.count);
    expect(near(point!.p50_ms, k['p(50)'], 0.01), `p50 ${point!.p50_ms} vs k6 ${k['p(50)']}`).toBe(true);
    expect(near(point!.p90_ms, k['p(90)'], 0.01), `p90 ${point!.p90_ms} vs k6 ${k['p(90)']}`).toBe(true);
    expect(near(point!.p99_ms, k['p(99)'], 0.01), `p99 ${point!.p99_ms} vs k6 ${k['p(99)']}`).toBe(true);
  });

  it('imports a file cut off mid-line (k6 killed): the cut line is reported, every whole request stored', async () => {
    const cut = join(dir, 'cut.json');
    copyFileSync(output, cut);
    const bytes = statSync(cut).size;
    // Cut in the middle of a line about two thirds through.
    const text = readFileSync(cut, 'utf8');
    const at = text.indexOf('{"metric":"http_req_duration"', Math.floor(bytes * 0.66)) + 60;
    truncateSync(cut, Buffer.byteLength(text.slice(0, at)));
    const whole = k6Requests(cut);
    const r = await runImport(k6Tool(), { files: [cut], ...common('cut') });
    expect(r.files[0]!.truncated).toBe(true);
    expect(r.files[0]!.bad).toBe(1);
    expect(r.files[0]!.badExamples[0]!.reason).toMatch(/cut off/);
    expect(r.files[0]!.events).toBe(whole);
    expect(total(await storedCounts(api, r.runId))).toBe(whole);
  });

  it('counts and reports garbage lines by number, never drops them silently, and stores the rest', async () => {
    const dirty = join(dir, 'dirty.json');
    const lines = readFileSync(output, 'utf8').split('\n');
    lines.splice(10, 0, 'garbage');
    lines.splice(20, 0, '{"metric":"http_req_duration","type":"Point","data":{"time":"yesterday","value":1,"tags":{"status":"200"}}}');
    lines.splice(30, 0, '\u0000\u0001binary');
    writeFileSync(dirty, lines.join('\n'));
    const r = await runImport(k6Tool(), { files: [dirty], ...common('dirty') });
    const f = r.files[0]!;
    expect(f.bad).toBe(3);
    expect(f.badExamples.map((b) => b.line)).toEqual([11, 21, 31]);
    expect(f.badExamples[1]!.reason).toMatch(/data.time/);
    expect(f.events).toBe(summary.http_reqs.values.count);
    expect(total(await storedCounts(api, r.runId))).toBe(summary.http_reqs.values.count);
  });

  it('stores the same file once when it is imported twice: the run is found by its tag, or given with --run', async () => {
    const first = await runImport(k6Tool(), { files: [output], ...common('twice') });
    const again = await runImport(k6Tool(), { files: [output], ...common('twice') });
    expect(first.how).toBe('new');
    expect(again.how).toBe('done');
    expect(again.runId).toBe(first.runId);
    expect(await runsWithKey(api, 'k6-import', 'twice', first.importKey)).toEqual([first.runId]);
    expect(total(await storedCounts(api, first.runId))).toBe(summary.http_reqs.values.count);

    // Into an explicit run (which the import leaves open): a second import sends every batch again
    // and the API keeps one copy.
    const client = new KneeboardApi({ baseUrl: api.url });
    const given = await client.createRun({ service: 'k6-import', release: 'given' });
    await client.close();
    const into = await runImport(k6Tool(), { files: [output], api: api.url, runId: given });
    const again2 = await runImport(k6Tool(), { files: [output], api: api.url, runId: given });
    expect([into.how, again2.how]).toEqual(['given', 'given']);
    expect(into.upload.duplicateBatches).toBe(0);
    expect(again2.upload.duplicateBatches).toBe(again2.upload.batches);
    expect(total(await storedCounts(api, given))).toBe(summary.http_reqs.values.count);
    // The run the first import finished ended when the file's last request did, long before the
    // API's late-data grace period: it takes nothing more, even the same batches.
    await expect(runImport(k6Tool(), { files: [output], api: api.url, runId: first.runId })).rejects.toThrow(/409.*run is finished since/);
    expect(total(await storedCounts(api, first.runId))).toBe(summary.http_reqs.values.count);
  });

  it('trims --warmup from the start of each step: fewer requests counted, all of them stored', async () => {
    const r = await runImport(k6Tool(), { files: [output], warmupMs: 500, ...common('warmup') });
    const counted = total(await storedCounts(api, r.runId));
    expect(counted).toBeLessThan(summary.http_reqs.values.count);
    expect(counted).toBeGreaterThan(summary.http_reqs.values.count * 0.5);
    expect(r.upload.uploaded).toBe(summary.http_reqs.values.count);
    for (const l of r.levels) expect(l.measure_from - l.started_at).toBe(500);
  });

  it('refuses a file with no vus samples without --level, naming the fix', async () => {
    const novus = join(dir, 'novus.json');
    writeFileSync(novus, readFileSync(output, 'utf8').split('\n').filter((l) => !l.includes('"metric":"vus"')).join('\n'));
    appendFileSync(novus, '\n');
    await expect(runImport(k6Tool(), { files: [novus], ...common('novus') })).rejects.toThrow(/--level/);
  });
});
