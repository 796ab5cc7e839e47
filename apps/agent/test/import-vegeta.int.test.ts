import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { runImport } from '../src/import/run-import.ts';
import { vegetaTool } from '../src/import/vegeta.ts';
import { near, percentile, storedCounts } from './support/import-helpers.ts';
import { findTool, fixture, fixturePath, run } from './support/load-tools.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-import-vegeta-'));
/** `vegeta report -type json`: latencies in ns. */
const Report = z.object({
  requests: z.number(),
  latencies: z.object({ '50th': z.number(), '90th': z.number(), '99th': z.number() }),
  status_codes: z.record(z.string(), z.number()),
});
type Report = z.infer<typeof Report>;

let api: ApiProcess;
let target: DemoTarget;
const RATES = [50, 100] as const;
/** Per rate: the attack encoded as JSON and as CSV, and vegeta's own report of it. */
const out: Record<number, { json: string; csv: string; report: Report }> = {};
let generatedBy: string;

beforeAll(async () => {
  [api, target] = await Promise.all([startApi(join(dir, 'data'), await freePort(), 90_000), startDemoTarget({ workers: 4, serviceMs: 5, jitterMs: 4, port: 0 })]);
  const vegeta = findTool('vegeta');
  generatedBy = vegeta ?? 'the committed samples (vegeta is not installed here)';
  for (const rate of RATES) {
    const files = { bin: join(dir, `r${rate}.bin`), json: join(dir, `r${rate}.json`), csv: join(dir, `r${rate}.csv`), report: join(dir, `r${rate}.report.json`) };
    if (vegeta !== null) {
      writeFileSync(join(dir, 'targets'), `GET ${target.url}/\n`);
      await run('/bin/sh', ['-c', `"${vegeta}" attack -rate ${rate} -duration 3s -targets "${dir}/targets" > "${files.bin}"`], { timeout: 60_000 });
      for (const [to, path] of [['json', files.json], ['csv', files.csv]] as const) {
        await run('/bin/sh', ['-c', `"${vegeta}" encode --to ${to} < "${files.bin}" > "${path}"`]);
      }
      await run('/bin/sh', ['-c', `"${vegeta}" report -type json < "${files.bin}" > "${files.report}"`]);
      if (process.env.KNEEBOARD_REFRESH_FIXTURES === '1') {
        for (const ext of ['json', 'csv'] as const) writeFileSync(fixturePath(`vegeta-r${rate}.${ext}.gz`), gzipSync(readFileSync(files[ext])));
        writeFileSync(fixturePath(`vegeta-r${rate}.report.json`), readFileSync(files.report));
      }
    } else {
      fixture(`vegeta-r${rate}.json.gz`, files.json);
      fixture(`vegeta-r${rate}.csv.gz`, files.csv);
      fixture(`vegeta-r${rate}.report.json`, files.report);
    }
    out[rate] = { json: files.json, csv: files.csv, report: Report.parse(JSON.parse(readFileSync(files.report, 'utf8'))) };
  }
}, 180_000);

/** Each JSON line read independently: send time (ms), latency (ms), code and its Server-Timing, by a regex. */
function vegetaRows(path: string) {
  const Line = z.object({ code: z.number(), timestamp: z.string(), latency: z.number(), headers: z.record(z.string(), z.array(z.string())).nullable() });
  const dur = (header: string | undefined, name: string) => {
    const m = header === undefined ? null : new RegExp(`(?:^|,)\\s*${name};dur=([0-9.]+)`).exec(header);
    return m === null ? null : Number(m[1]);
  };
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const r = Line.parse(JSON.parse(l));
      const timing = r.headers?.['Server-Timing']?.join(', ');
      const [, frac = '0'] = /\.(\d+)Z$/.exec(r.timestamp) ?? [];
      // Date.parse keeps whole ms only: the digits after them are added back (vegeta writes ns).
      const sentMs = Date.parse(r.timestamp.replace(/\.\d+Z$/, 'Z')) + Number(`0.${frac}`) * 1000;
      return { code: r.code, sentMs, latencyMs: r.latency / 1e6, computeMs: dur(timing, 'compute'), queueMs: dur(timing, 'queue') };
    });
}

afterAll(async () => {
  await api?.stop();
  await target?.close();
});

describe(`kneeboard import vegeta (real vegeta output, real API)`, () => {
  it('imports one file per rate as an open-loop sweep: JSON and CSV encodings, every request vegeta counted', async () => {
    const r = await runImport(vegetaTool, { files: [out[50]!.json, out[100]!.csv], levels: [50, 100], api: api.url, run: { service: 'vegeta-import', release: 'sweep' } });
    expect(await storedCounts(api, r.runId), `vegeta from ${generatedBy}`).toEqual({ 50: out[50]!.report.requests, 100: out[100]!.report.requests });
    expect(r.files.map((f) => f.bad)).toEqual([0, 0]);
    const detail = await api.run(r.runId);
    expect(detail.run.load_model).toBe('open');
    expect(detail.run.parameter).toBe('rate');
    // The demo target answers every request at these rates: vegeta's status codes say the same.
    expect(detail.curve.map((p) => p.errors)).toEqual([out[50]!.report.status_codes['0'] ?? 0, out[100]!.report.status_codes['0'] ?? 0]);
  });

  it('reads JSON and CSV of the same attack to the same stored requests; percentiles match the file exactly and vegeta’s t-digest closely', async () => {
    const [fromJson, fromCsv] = await Promise.all(
      (['json', 'csv'] as const).map((ext) => runImport(vegetaTool, { files: [out[100]![ext]], levels: [100], api: api.url, run: { service: 'vegeta-import', release: `pct-${ext}` } })),
    );
    const [a] = (await api.run(fromJson!.runId)).curve;
    const [b] = (await api.run(fromCsv!.runId)).curve;
    expect(a!.requests).toBe(out[100]!.report.requests);
    expect(b!.requests).toBe(a!.requests);
    expect(b!.p50_ms).toBeCloseTo(a!.p50_ms!, 3);
    // Exact percentiles of the file, computed here with JSON.parse and a sort: within 1 %.
    const latencies = readFileSync(out[100]!.json, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => z.object({ code: z.number(), latency: z.number() }).parse(JSON.parse(l)))
      .filter((r) => r.code >= 1 && r.code <= 399)
      .map((r) => r.latency / 1e6);
    for (const [q, stored] of [[0.5, a!.p50_ms], [0.9, a!.p90_ms], [0.99, a!.p99_ms]] as const) {
      expect(near(stored, percentile(latencies, q), 0.01), `p${q * 100} ${stored} vs ${percentile(latencies, q)}`).toBe(true);
    }
    // vegeta's own report estimates quantiles with a t-digest (compression 100), not exactly: at a
    // few hundred samples its p50/p90 were seen up to 2.3 % from the exact value.
    const v = out[100]!.report.latencies;
    expect(near(a!.p50_ms, v['50th'] / 1e6, 0.05), `p50 ${a!.p50_ms} vs vegeta ${v['50th'] / 1e6}`).toBe(true);
    expect(near(a!.p90_ms, v['90th'] / 1e6, 0.05), `p90 ${a!.p90_ms} vs vegeta ${v['90th'] / 1e6}`).toBe(true);
  });

  it('keeps the Server-Timing vegeta recorded: compute and queue p50/p99 are the file’s own, from JSON and CSV alike', async () => {
    // The demo target sends `Server-Timing: queue;dur=…, compute;dur=…`; vegeta keeps each response's headers.
    const rows = vegetaRows(out[100]!.json).filter((r) => r.code >= 1 && r.code <= 399);
    const compute = rows.map((r) => r.computeMs).filter((v): v is number => v !== null);
    const queue = rows.map((r) => r.queueMs).filter((v): v is number => v !== null);
    expect(compute.length, `vegeta from ${generatedBy}: every response had Server-Timing`).toBe(rows.length);
    expect(queue.length).toBe(rows.length);
    for (const ext of ['json', 'csv'] as const) {
      const r = await runImport(vegetaTool, { files: [out[100]![ext]], levels: [100], api: api.url, run: { service: 'vegeta-import', release: `timing-${ext}` } });
      const [p] = (await api.run(r.runId)).curve;
      for (const [stored, values, q] of [
        [p!.compute_p50_ms, compute, 0.5],
        [p!.compute_p99_ms, compute, 0.99],
        [p!.queue_p50_ms, queue, 0.5],
        [p!.queue_p99_ms, queue, 0.99],
      ] as const) {
        expect(near(stored, percentile(values, q), 0.001), `${ext} q${q}: ${stored} vs ${percentile(values, q)}`).toBe(true);
      }
    }
  });

  it('takes the run’s start, end and step window from the file’s own times, not the import’s clock', async () => {
    const rows = vegetaRows(out[50]!.json);
    const firstSend = Math.min(...rows.map((r) => r.sentMs));
    const lastDone = Math.max(...rows.map((r) => r.sentMs + r.latencyMs));
    const importedAt = Date.now();
    const r = await runImport(vegetaTool, { files: [out[50]!.json], levels: [50], api: api.url, run: { service: 'vegeta-import', release: 'span' } });
    const detail = await api.run(r.runId);
    // The run's span is stored in whole ms, rounded outwards.
    expect(detail.run.created_at).toBe(Math.floor(firstSend));
    expect(detail.run.finished_at).toBe(Math.ceil(lastDone));
    expect(detail.run.finished_at).toBeLessThan(importedAt);
    expect(detail.steps).toHaveLength(1);
    expect(detail.steps[0]!.started_at).toBeCloseTo(firstSend, 3);
    expect(detail.steps[0]!.ended_at).toBeCloseTo(lastDone, 3);
  });

  it('needs --level: vegeta files do not say the rate', async () => {
    await expect(runImport(vegetaTool, { files: [out[50]!.json], api: api.url, run: { service: 'vegeta-import', release: 'nolevel' } })).rejects.toThrow(/--level/);
  });
});
