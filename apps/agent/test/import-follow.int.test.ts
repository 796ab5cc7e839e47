import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ListRunsResponse } from '@kneeboard/contracts';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { gatlingTool } from '../src/import/gatling.ts';
import { k6Tool } from '../src/import/k6.ts';
import { runImport } from '../src/import/run-import.ts';
import { k6Requests } from './support/import-helpers.ts';
import { recordedK6Output, realK6, startK6 } from './support/k6-or-recording.ts';
import { fixture, fixturePath } from './support/load-tools.ts';
import { freePort, startApi, type ApiProcess } from './support/real-api.ts';
import { runCli, type CliRun } from './support/run-cli.ts';


/** The CLI reading k6's stdout as its stdin, like `k6 … | kneeboard import k6 - --follow`. */
function pipeCli(args: string[], from: Readable, timeoutMs: number): CliRun {
  return runCli(args, timeoutMs, {}, from);
}

/**
 * `--follow` with k6: the curve must have points while k6 is still running, the run must stay
 * running until the stream ends, and then hold exactly k6's own request count. With the real k6
 * where it is installed (scripts/lib/load-tools.sh); elsewhere a recorded real k6 run is written
 * to the pipe or the file over a few seconds, as k6 writes it (support/k6-or-recording.ts).
 */
const dir = mkdtempSync(join(tmpdir(), 'kb-import-follow-'));
const SCRIPT = fixturePath('k6-follow.js');
const Summary = z.object({ metrics: z.object({ http_reqs: z.object({ values: z.object({ count: z.number() }) }) }) });

let api: ApiProcess;
let target: DemoTarget;

beforeAll(async () => {
  [api, target] = await Promise.all([startApi(join(dir, 'data'), await freePort(), 90_000), startDemoTarget({ workers: 2, serviceMs: 5, jitterMs: 2, port: 0 })]);
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await target?.close();
});

/** First and last level of the recorded k6 run, imported after the fact. */
async function recordedLevelEnds(release: string): Promise<number[]> {
  const after = await runImport(k6Tool(), { files: [recordedK6Output(dir)], api: api.url, run: { service: 'follow', release: `${release}-recorded` } });
  const levels = (await api.run(after.runId)).curve.map((p) => p.level);
  return [levels[0]!, levels.at(-1)!];
}

/** The run of a release, once the import has made it. */
async function runOf(release: string) {
  const res = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=follow&release=${release}`)).json());
  return res.runs[0];
}

/**
 * Polls the API while k6 runs. Returns what it saw: the most levels on the curve, and the run's
 * status then, from a poll that finished before k6 exited.
 */
async function watchWhileRunning(release: string, k6Exited: () => boolean): Promise<{ levels: number; status: string | undefined; requests: number }> {
  let seen = { levels: 0, status: undefined as string | undefined, requests: 0 };
  const deadline = Date.now() + 40_000;
  while (!k6Exited() && Date.now() < deadline) {
    const run = await runOf(release);
    if (run !== undefined) {
      const detail = await api.run(run.id);
      const requests = detail.curve.reduce((s, p) => s + p.requests, 0);
      // Only what was seen before k6 ended counts as live.
      if (!k6Exited() && detail.curve.length >= seen.levels) seen = { levels: detail.curve.length, status: detail.run.status, requests };
    }
    await sleep(250);
  }
  return seen;
}

/** Resolves once the CLI has made its run (it prints the run's link): only then is the load started. */
async function runMade(cli: CliRun): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!/^run http/m.test(cli.stdout())) {
    if (cli.child.exitCode !== null || Date.now() > deadline) throw new Error(`the CLI made no run: ${cli.stderr()}`);
    await sleep(50);
  }
}

async function afterCli(cli: CliRun, release: string, summaryPath: string) {
  const out = await cli.done;
  expect(out.code, out.stderr).toBe(0);
  const run = (await runOf(release))!;
  const detail = await api.run(run.id);
  const k6Count = Summary.parse(JSON.parse(readFileSync(summaryPath, 'utf8'))).metrics.http_reqs.values.count;
  return { detail, k6Count, out };
}

describe(`kneeboard import k6 --follow (${realK6 ? 'real k6' : 'a recorded real k6 run, replayed as k6 writes it'})`, () => {
  it('draws the curve from `k6 run --out json=- | kneeboard import k6 - --follow` while k6 runs', async () => {
    const summaryPath = join(dir, 'pipe-summary.json');
    const release = `pipe-${Date.now()}`;
    const stream = new PassThrough();
    const cli = pipeCli(['import', 'k6', '-', '--follow', '--service', 'follow', '--release', release, '--api', api.url], stream, 90_000);
    await runMade(cli);
    const k6Run = startK6({ script: SCRIPT, targetUrl: `${target.url}/`, out: '-', summaryPath, dir });
    k6Run.stdout!.pipe(stream);
    let exited = false;
    k6Run.on('exit', () => (exited = true));
    const live = await watchWhileRunning(release, () => exited);
    expect(exited).toBe(true);
    expect(live.levels).toBeGreaterThanOrEqual(1);
    expect(live.requests).toBeGreaterThan(0);
    expect(live.status).toBe('running');

    const { detail, k6Count } = await afterCli(cli, release, summaryPath);
    expect(detail.run.status).toBe('finished');
    // k6 may sample the VU count mid-jump (3 between 2 and 4): the first and last levels are sure.
    // A recorded run's are those of the same output imported after the fact.
    const levels = detail.curve.map((p) => p.level);
    expect([levels[0], levels.at(-1)]).toEqual(realK6 ? [2, 4] : await recordedLevelEnds(release));
    expect(detail.curve.reduce((s, p) => s + p.requests, 0)).toBe(k6Count);
  }, 120_000);

  it('follows a file k6 is still writing, and ends when it stops growing', async () => {
    const summaryPath = join(dir, 'file-summary.json');
    const output = join(dir, 'growing.json');
    const release = `file-${Date.now()}`;
    // Started first: it waits for the file to appear.
    const cli = runCli(['import', 'k6', output, '--follow', '--follow-idle', '3s', '--service', 'follow', '--release', release, '--api', api.url], 90_000);
    await runMade(cli);
    const k6Run = startK6({ script: SCRIPT, targetUrl: `${target.url}/`, out: output, summaryPath, dir });
    let exited = false;
    k6Run.on('exit', () => (exited = true));
    const live = await watchWhileRunning(release, () => exited);
    expect(live.levels).toBeGreaterThanOrEqual(1);
    expect(live.status).toBe('running');

    const { detail, k6Count } = await afterCli(cli, release, summaryPath);
    expect(detail.run.status).toBe('finished');
    expect(detail.curve.reduce((s, p) => s + p.requests, 0)).toBe(k6Count);
    // Live or after the fact, the same file gives the same steps and counts.
    const after = await runImport(k6Tool(), { files: [output], api: api.url, run: { service: 'follow', release: `${release}-after` } });
    const afterDetail = await api.run(after.runId);
    expect(detail.curve.map((p) => [p.level, p.requests])).toEqual(afterDetail.curve.map((p) => [p.level, p.requests]));
  }, 120_000);
});

describe('kneeboard import --follow, ended by Ctrl-C', () => {
  it('on SIGINT sends what it read, finishes the run and exits 0', async () => {
    // k6's output from the committed sample, as a file that could still grow: only SIGINT ends this follow.
    const file = fixture('k6-ramp.json.gz', join(dir, 'sigint.json'));
    const release = `sigint-${Date.now()}`;
    const cli = runCli(['import', 'k6', file, '--follow', '--follow-idle', '10m', '--service', 'follow', '--release', release, '--api', api.url], 90_000);
    await runMade(cli);
    const expected = k6Requests(file);
    const run = (await runOf(release))!;
    // Live, the newest requests wait for a load sample after them, and late ones for the final
    // windows: the stored count grows to near the file's, then holds until the stream ends.
    const deadline = Date.now() + 60_000;
    let stored = 0;
    for (let previous = -1; (stored === 0 || stored !== previous) && Date.now() < deadline; ) {
      await sleep(1_000);
      previous = stored;
      stored = (await api.run(run.id)).curve.reduce((n, p) => n + p.requests, 0);
    }
    expect(stored).toBeGreaterThan(expected / 2);
    expect((await api.run(run.id)).run.status).toBe('running');
    cli.child.kill('SIGINT');
    const out = await cli.done;
    expect(out.code, out.stderr).toBe(0);
    const detail = await api.run(run.id);
    expect(detail.run.status).toBe('finished');
    expect(detail.curve.reduce((n, p) => n + p.requests, 0)).toBe(expected);
  }, 120_000);
});

describe('kneeboard import gatling --follow: a binary simulation.log (Gatling 3.13+) still being written', () => {
  it('stores requests while the log grows, and in the end what an import after the fact stores', async () => {
    const whole = readFileSync(fixture('gatling-3.13-steps.simulation.bin', join(dir, 'gatling-whole.bin')));
    const growing = join(dir, 'gatling-growing.bin');
    const release = `gatling-${Date.now()}`;
    // Started first: it waits for the log to appear, then tells the binary format by its first byte.
    const cli = runCli(['import', 'gatling', growing, '--follow', '--follow-idle', '3s', '--service', 'follow', '--release', release, '--api', api.url], 90_000);
    await runMade(cli);
    const run = (await runOf(release))!;
    // Seven eighths in pieces, cut anywhere (mid-record too), as Gatling's buffered writer leaves them.
    const held = Math.floor((whole.length * 7) / 8);
    for (let i = 0; i < 7; i++) {
      appendFileSync(growing, whole.subarray(Math.floor((held * i) / 7), Math.floor((held * (i + 1)) / 7)));
      await sleep(150);
    }
    // Requests are stored while the log is still incomplete.
    const deadline = Date.now() + 30_000;
    let live = 0;
    while (live === 0 && Date.now() < deadline) {
      await sleep(250);
      live = (await api.run(run.id)).curve.reduce((n, p) => n + p.requests, 0);
    }
    expect(live).toBeGreaterThan(0);
    expect((await api.run(run.id)).run.status).toBe('running');
    appendFileSync(growing, whole.subarray(held));
    const out = await cli.done;
    expect(out.code, out.stderr).toBe(0);

    const detail = await api.run(run.id);
    expect(detail.run.status).toBe('finished');
    const after = await runImport(gatlingTool, { files: [growing], api: api.url, run: { service: 'follow', release: `${release}-after` } });
    const afterDetail = await api.run(after.runId);
    expect(detail.curve.map((p) => [p.level, p.requests])).toEqual(afterDetail.curve.map((p) => [p.level, p.requests]));
    expect(live).toBeLessThan(afterDetail.curve.reduce((n, p) => n + p.requests, 0));
  }, 120_000);
});
