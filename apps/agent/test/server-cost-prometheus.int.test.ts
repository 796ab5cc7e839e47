import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusReadResponse, RunCost } from '@kneeboard/contracts';
import { runSweep } from '../src/sweep/run-sweep.ts';
import { SweepError } from '../src/sweep/sweep-error.ts';
import { startTargetProcess, type TargetProcess } from './support/demo-target-process.ts';
import { startPrometheus, type PrometheusProcess } from './support/prometheus-process.ts';
import { runCli } from './support/run-cli.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';

// Issue 28's Prometheus source when things go wrong, against a real Prometheus scraping the demo
// target: a server that dies mid-sweep, an error answer, an empty result and an unreachable server
// are each stored as the step's named gap (never fatal); the caller's own mistakes are refused.
let api: ApiProcess;
let target: TargetProcess;
let prom: PrometheusProcess;
/** In front of Prometheus: fails query_range calls for level 2's window (from the second before `failFromS`: a counter's first increase needs it). */
let relay: Server;
let relayUrl: string;
let failFromS = Infinity;

beforeAll(async () => {
  [api, target] = await Promise.all([startApi(mkdtempSync(join(tmpdir(), 'kb-agent-prom-')), await freePort(), 90_000), startTargetProcess(['--workers', '4', '--service-ms', '5', '--cpu-ms', '2'])]);
  prom = await startPrometheus({ target: new URL(target.url).host });
  relay = createServer((req, res) => {
    const url = new URL(req.url!, prom.url);
    if (url.pathname.endsWith('/query_range') && Number(url.searchParams.get('start')) >= failFromS - 1) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
      return;
    }
    void fetch(`${prom.url}${url.pathname}${url.search}`).then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()));
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
}, 180_000);
afterAll(async () => {
  relay?.close();
  await Promise.all([api?.stop(), target?.stop(), prom?.stop()]);
});

const sweep = (release: string, extra: Record<string, unknown>, warn?: (m: string) => void) =>
  runSweep(
    { target: `${target.url}/`, levels: [1, 2], durationMs: 3_000, warmupMs: 500, engine: 'node', run: { service: 'prom-test', release }, api: api.url, spoolDir: null, ...extra },
    { reporter: { stepStarted: (s) => void (s.level === 2 && extra.prometheus === relayUrl && (failFromS = Math.floor(s.started_at / 1000))), ...(warn ? { warn } : {}) } },
  );
const costOf = async (runId: string) => RunCost.parse(await (await fetch(`${api.url}/api/v1/runs/${runId}/cost`)).json());
const readProm = (runId: string, body: unknown) =>
  fetch(`${api.url}/api/v1/runs/${runId}/server-metrics/prometheus`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

describe('--prometheus and the API’s Prometheus read, when the source fails', () => {
  let finishedRun: string;

  it('a Prometheus that dies mid-sweep is a named gap in the step’s notes, and the sweep goes on', async () => {
    const warnings: string[] = [];
    const result = await sweep('dies', { prometheus: relayUrl }, (m) => warnings.push(m));
    failFromS = Infinity;
    expect(result.status).toBe('finished');
    finishedRun = result.runId;
    expect(warnings.some((w) => w.startsWith(`--prometheus ${relayUrl}, level 2: cpu: no samples between`) && w.endsWith('(HTTP 503)'))).toBe(true);
    const cost = await costOf(result.runId);
    const [level1, level2] = cost.levels;
    expect(level1!.notes).toEqual([]);
    expect(level1!.source).toBe('prometheus');
    expect(level1!.cores_used).toBeGreaterThan(0);
    expect(level2!.level).toBe(2);
    expect(level2!.notes).toHaveLength(2);
    expect(level2!.notes[0]).toMatch(/^cpu: no samples between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d \(HTTP 503\)$/);
    expect(level2!.notes[1]).toMatch(/^mem: no samples between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d \(HTTP 503\)$/);
    // No figure is made up for it.
    expect(level2!.cores_used).toBeNull();
    expect(level2!.peak_memory_bytes).toBeNull();
  }, 90_000);

  it('the API reads a finished run again: an empty result and an unreachable server are named gaps, the good query stored', async () => {
    const res = await readProm(finishedRun, { url: prom.url, queries: ['cpu=rate(process_cpu_seconds_total{job="target"})', 'none=nothing_is_called_this'], cores_available: 1 });
    expect(res.status).toBe(200);
    const read = PrometheusReadResponse.parse(res.body);
    expect(read.levels.map((l) => l.level)).toEqual([1, 2]);
    for (const l of read.levels) expect(l.notes).toEqual([expect.stringMatching(/^none: no samples between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d \(Prometheus returned no series\)$/)]);
    const cost = await costOf(finishedRun);
    // Level 2's gap is filled now that the server answers; the cores available are the body's.
    expect(cost.levels.map((l) => [l.level, l.cores_available, l.cores_used! > 0, l.peak_memory_bytes! > 0])).toEqual([
      [1, 1, true, true],
      [2, 1, true, true],
    ]);

    const port = await freePort();
    const dead = await readProm(finishedRun, { url: `http://127.0.0.1:${port}`, levels: [2] });
    expect(dead.status).toBe(200);
    expect(PrometheusReadResponse.parse(dead.body).levels).toEqual([
      { level: 2, points: 0, notes: [expect.stringMatching(/^cpu: no samples between .* \(ECONNREFUSED\)$/), expect.stringMatching(/^mem: no samples between .* \(ECONNREFUSED\)$/)] },
    ]);
    expect((await costOf(finishedRun)).levels[1]!.notes).toHaveLength(2);
  }, 60_000);

  it('refuses the caller’s mistakes with a 400 naming the field, storing nothing', async () => {
    const before = await costOf(finishedRun);
    const cases: Array<[unknown, number, string]> = [
      [{ url: 'http://example.com:9090' }, 400, 'url'], // not on the allow-list: the API is no open proxy
      [{ url: 'http://169.254.169.254/latest' }, 400, 'url'],
      [{ url: 'ftp://127.0.0.1/' }, 400, 'url'],
      [{ url: `http://user:pw@127.0.0.1:9090` }, 400, 'url'],
      [{ url: `${prom.url}?x=1` }, 400, 'url'],
      [{ url: prom.url, queries: ['cpu'] }, 400, 'queries[0]'],
      [{ url: prom.url, queries: ['ok=up', 'cpu=sum(rate(x[1m])'] }, 400, 'queries[1]'],
      // Prometheus itself cannot parse it (rate needs a range): its message, naming the query.
      [{ url: prom.url, queries: ['cpu=sum(rate(process_cpu_seconds_total))'] }, 400, 'queries[0]'],
      [{ url: prom.url, levels: [3] }, 400, 'levels[0]'],
      [{ url: prom.url, queries: Array.from({ length: 17 }, (_, i) => `q${i}=up`) }, 400, 'queries'],
    ];
    for (const [body, status, field] of cases) {
      const res = await readProm(finishedRun, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.field, JSON.stringify(res.body)).toBe(field);
    }
    expect(await costOf(finishedRun)).toEqual(before);
    const unknown = await readProm('00000000-0000-4000-8000-000000000000', { url: prom.url });
    expect(unknown.status).toBe(404);
  }, 60_000);

  it('the sweep refuses an unreachable --prometheus and a query it cannot parse before the run is made, naming the flag', async () => {
    const port = await freePort();
    const err = await sweep('dead', { prometheus: `http://127.0.0.1:${port}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SweepError);
    expect((err as SweepError).message).toBe(`--prometheus http://127.0.0.1:${port}: cannot read it (ECONNREFUSED)`);
    const bad = await sweep('dead', { prometheus: prom.url, promql: ['cpu=sum(rate(process_cpu_seconds_total))'] }).catch((e: unknown) => e);
    expect((bad as SweepError).message).toMatch(/^--promql cpu=sum\(rate\(process_cpu_seconds_total\)\): Prometheus bad_data: /);
    const cfg = await sweep('dead', { promql: ['cpu=up'] }).catch((e: unknown) => e);
    expect((cfg as SweepError).message).toMatch(/needs --prometheus \(the server the queries go to\)\n\s+→ at promql/);
    const listed = (await (await fetch(`${api.url}/api/v1/runs?service=prom-test&release=dead`)).json()) as { runs: unknown[] };
    expect(listed.runs).toEqual([]);
  }, 60_000);

  it('kneeboard import --prometheus: once the file is stored, the API reads its step’s window from Prometheus', async () => {
    // A vegeta result file of the last few seconds (the demo target was being scraped all along).
    const now = Date.now();
    const file = join(mkdtempSync(join(tmpdir(), 'kb-import-prom-')), 'r20.json');
    const line = (i: number) => JSON.stringify({ code: 200, timestamp: new Date(now - 9_000 + i * 50).toISOString(), latency: 5e6, method: 'GET', url: `${target.url}/` });
    writeFileSync(file, `${Array.from({ length: 140 }, (_, i) => line(i)).join('\n')}\n`);
    const args = ['import', 'vegeta', file, '--level', '20', '--service', 'prom-test', '--release', 'import', '--api', api.url];
    const out = await runCli([...args, '--prometheus', prom.url, '--promql', 'cpu=rate(process_cpu_seconds_total{job="target"})', '--cores', '1'], 60_000).done;
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`server metrics from ${prom.url.replaceAll('.', '\\.')}: 1 level, \\d+ values`));
    const runId = /\/runs\/([0-9a-f-]{36})/.exec(out.stdout)![1]!;
    const cost = await costOf(runId);
    expect(cost.levels.map((l) => [l.level, l.source, l.cores_available, l.notes])).toEqual([[20, 'prometheus', 1, []]]);
    expect(cost.levels[0]!.cores_used).toBeGreaterThan(0);
    expect(cost.levels[0]!.seconds).toBeGreaterThanOrEqual(5);

    // A query without --prometheus is refused before anything is read or sent.
    const bad = await runCli([...args, '--promql', 'cpu=up'], 30_000).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--promql needs --prometheus');
  }, 90_000);
});
