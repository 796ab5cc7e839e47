import { createServer as createH2Server } from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeApi } from '@kneeboard/agent-sdk/testing';
import { closedPort } from './support/closed-port.ts';
import type { LevelSummary } from '../src/index.ts';
import { ENGINES } from './support/engines.ts';
import { runCli } from './support/run-cli.ts';
import { expectVerdictFollowsFigures } from './support/verdict.ts';

let fake: FakeApi;
let target: DemoTarget;
let deadPort: number;

beforeAll(async () => {
  fake = await FakeApi.start();
  target = await startDemoTarget({ workers: 2, serviceMs: 10, port: 0 });
  deadPort = await closedPort();
});
afterAll(async () => {
  await target.close();
  await fake.close();
});

const spoolDir = mkdtempSync(join(tmpdir(), 'kb-cli-spool-'));
// How long a sweep's CLI may take to start and run: on a loaded 2-core box the launcher alone took
// over 20 s to print its table header. A bound on a hang, not on speed.
const CLI_START_MS = 120_000;
const base = () => ['sweep', '--target', `${target.url}/`, '--service', 'demo', '--release', 'cli-test', '--api', fake.url, '--spool-dir', spoolDir];

describe('kneeboard CLI (bin/kneeboard.mjs)', () => {
  it('prints help and exits 0', async () => {
    const { code, stdout } = await runCli(['sweep', '--help']).done;
    expect(code).toBe(0);
    for (const flag of ['--levels <list>', '--concurrency <list>', '--rate <list>', '--arrivals <kind>', '--think-time <time>', '--max-connections <n>',
      '--param <name>', '--before-level <cmd>', '--ready-url <url>', '--request-file <path>', '--compute-metric <names>', '--spool-dir <dir>', '--warmup <time>']) {
      expect(stdout).toContain(flag);
    }
    // The deliberate starvation knob lives in the tests' support (test/support/cpu-burn.ts), not in the CLI.
    expect(stdout).not.toContain('--cpu-burn-ms');
  });

  it.each([
    [['--duration', '10x'], '--duration'],
    [['--levels', '1,x'], '--levels'],
    [['--levels', '2,2'], '--levels: must not repeat a level'],
    [['--git-sha', 'not-hex'], '--git-sha: must be a hex git sha'],
    [['--tag', 'novalue'], '--tag'],
    [['--target', 'ftp://x'], '--target: must be an http:// or https:// URL'],
    [['--rate', '100,x'], '--rate'],
    [['--rate', '100,100'], '--rate: must not repeat a level'],
    [['-c', '0'], '--concurrency: must be at least 1'],
    [['--rate', '100', '-c', '2'], '--rate and --concurrency: give one of them'],
    [['--param', 'workers', '--levels', '1,2', '-c', '8'], '--before-level: a workers sweep needs a command'],
    [['--arrivals', 'bursty'], "argument 'bursty' is invalid"],
    [['--compute-metric', 'a b'], '--compute-metric'],
    [['--bogus'], "unknown option '--bogus'"],
    [['--engine', 'rust'], "argument 'rust' is invalid"],
    [['--engine', 'node', '--threads', '2'], '--threads: needs the native engine'],
    [['--threads', '0'], '--threads'],
  ])('exits 2 naming the flag for %j', async (extra, message) => {
    const { code, stderr } = await runCli([...base(), ...extra]).done;
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('exits 2 when a required flag is missing', async () => {
    const { code, stderr } = await runCli(['sweep', '--target', `${target.url}/`, '--release', 'x']).done;
    expect(code).toBe(2);
    expect(stderr).toContain('--service');
  });

  it('exits 1 naming the API URL and the cause when the API is not running', async () => {
    const api = `http://127.0.0.1:${deadPort}`;
    const { code, stderr } = await runCli([...base(), '--api', api]).done;
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot reach the Kneeboard API at ${api} (ECONNREFUSED). Is it running? Start everything with`);
  });

  it('exits 1 naming the target URL and the cause when the target is not running', async () => {
    const runsBefore = fake.runs.length;
    const dead = `http://127.0.0.1:${deadPort}/x`;
    const { code, stderr } = await runCli([...base(), '--target', dead]).done;
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot reach the target at ${dead} (ECONNREFUSED)`);
    expect(fake.runs.length).toBe(runsBefore);
  });
});

describe.each(ENGINES)('kneeboard sweep on the %s engine', (engine) => {
  it('runs a sweep: the run URL and the table on a pipe (no progress line), JSON on stdout with --json', async () => {
    const { code, stdout, stderr } = await runCli([...base(), '--engine', engine, '--levels', '1,2', '--duration', '500ms', '--warmup', '0', '--web', 'http://ui.test', '--json'], CLI_START_MS).done;
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.status).toBe('finished');
    expect(json.engine).toBe(engine);
    expect(json.run_url).toBe(`http://ui.test/runs/${json.run_id}`);
    expect(json.levels.map((l: { level: number }) => l.level)).toEqual([1, 2]);
    expect(json.upload.lost_events).toBe(0);
    expect(stderr).toContain(`run http://ui.test/runs/${json.run_id}`);
    expect(stderr).toContain(`· ${engine} engine`);
    expect(stderr).toMatch(/\| concurrency \|\s+QPS \|\s+p50 \|\s+p99 \|\s+p99.9 \| compute p50 \| queue p50 \| errors \| in-flight \|\s+Little \| agent cpu \|\s+loop p99 \| limited \|/);
    // Whether each level was held is the agent's verdict on itself (a busy box is in it): it follows from the level's figures.
    for (const l of json.levels as LevelSummary[]) expectVerdictFollowsFigures(l, { windowMs: 500 });
    expect(stderr).toMatch(/\|\s+2 \|\s+\d+/);
    expect(stderr).not.toContain('\x1b[2K');
    expect(fake.finishes.at(-1)).toEqual({ runId: json.run_id, status: 'finished' });
  }, 2 * CLI_START_MS);

  it('refuses a target that speaks only HTTP/2 (prior-knowledge h2c) before the run, naming the protocol', async () => {
    // Neither engine speaks HTTP/2 (apps/agent/engine/README.md): such a target must fail loudly, not be measured.
    const h2 = createH2Server((_req, res) => res.end('ok'));
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
    try {
      const runsBefore = fake.runs.length;
      const url = `http://127.0.0.1:${(h2.address() as { port: number }).port}/`;
      const { code, stderr } = await runCli([...base(), '--target', url, '--engine', engine, '-c', '2', '--duration', '300ms', '--warmup', '0']).done;
      expect(code).toBe(1);
      expect(stderr).toContain(`cannot reach the target at ${url}`);
      expect(stderr).toContain('HTTP/1.1 protocol');
      expect(fake.runs.length).toBe(runsBefore);
    } finally {
      h2.close();
    }
  });

  it('on SIGINT: flushes, finishes the run as aborted, exits 130', async () => {
    const run = runCli([...base(), '--engine', engine, '--levels', '2,4', '--duration', '10s', '--warmup', '0'], CLI_START_MS);
    // Wait for the table header: the run exists and load is on its way.
    const deadline = Date.now() + CLI_START_MS;
    while (!run.stdout().includes('| concurrency |')) {
      if (Date.now() > deadline) throw new Error(`no table header; stdout so far: ${run.stdout()}`);
      await sleep(20);
    }
    await sleep(500);
    run.child.kill('SIGINT');
    const { code, stdout } = await run.done;
    expect(code).toBe(130);
    expect(stdout).toContain('stopping: closing the current step, flushing events');
    expect(stdout).toMatch(/\|\s+2 \|.*\(stopped early\)/);
    const runId = /runs\/([0-9a-f-]{36})/.exec(stdout)![1]!;
    expect(fake.finishes.filter((f) => f.runId === runId)).toEqual([{ runId, status: 'aborted' }]);
    const recorded = Number(/(\d+) requests recorded/.exec(stdout)![1]);
    expect(recorded).toBeGreaterThan(0);
    expect(fake.events(runId).length).toBe(recorded);
  }, 2 * CLI_START_MS);
});

describe('kneeboard sweep --rate and a starved agent, as a user sees them', () => {
  it('prints the open-loop table: offered, achieved and sent rates, late and missed sends', async () => {
    const { code, stdout } = await runCli([...base(), '--rate', '50,100', '--duration', '600ms', '--warmup', '200ms']).done;
    expect(code).toBe(0);
    expect(stdout).toContain('open loop · uniform rate (req/s) 50,100');
    expect(stdout).toMatch(/\|\s+rate \| achieved \|\s+sent\/s \|.*\|\s+late \| missed \| agent cpu \|\s+loop p99 \| limited \|/);
    expect(stdout).toMatch(/\|\s+100 \|\s+\d+(\.\d)? \|\s+\d+(\.\d)? \|/);
    expect(fake.runs.at(-1)!.body).toMatchObject({ load_model: 'open', parameter: 'rate' });
  });

  it('flags a starved level in the table, with the reason under the row', async () => {
    const { code, stdout } = await runCli([...base(), '-c', '8', '--max-connections', '2', '--duration', '600ms', '--warmup', '100ms']).done;
    expect(code).toBe(0);
    expect(stdout).toMatch(/\|\s+8 \|.*\|\s+YES \|/);
    expect(stdout).toMatch(/level 8: GENERATOR-LIMITED — Only [\d.]+ of 8 requests were on the wire on average — --max-connections 2 caps the connections\./);
  });

  it('`flush` with nothing to send says so and exits 0', async () => {
    const { code, stdout } = await runCli(['flush', '--spool-dir', mkdtempSync(join(tmpdir(), 'kb-empty-')), '--api', fake.url]).done;
    expect(code).toBe(0);
    expect(stdout).toMatch(/: 0 runs, 0 calls delivered/);
  });
});
