#!/usr/bin/env node
// Starts the whole product on the embedded default: the API (chDB under .data/), the web app, a demo
// target, and a demo sweep, so the first page opened shows a curve growing. Ctrl-C stops everything.
// Plain Node with no dependencies: it runs before anything is built.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { demoTokens } from './lib/demo-token.mjs';

const env = process.env;
// The defaults are packages/contracts/src/defaults.ts's (DEFAULT_API_PORT, DEFAULT_WEB_PORT,
// DEFAULT_DEMO_TARGET_PORT), copied because this script runs before anything is built (packages/contracts/test/defaults.test.ts
// checks they are equal).
const API_PORT = Number(env.KNEEBOARD_API_PORT ?? 4000);
const WEB_PORT = Number(env.KNEEBOARD_WEB_PORT ?? 3000);
const TARGET_PORT = Number(env.KNEEBOARD_DEMO_PORT ?? 4100);
const API = `http://127.0.0.1:${API_PORT}`;
const WEB = `http://127.0.0.1:${WEB_PORT}`;
const TARGET = `http://127.0.0.1:${TARGET_PORT}`;
// A second build of the demo service with more workers, swept as the next release, so the first
// visit can already compare two releases.
const NEXT_TARGET_PORT = TARGET_PORT + 1;
const NEXT_TARGET = `http://127.0.0.1:${NEXT_TARGET_PORT}`;
const DEMO = env.KNEEBOARD_DEMO !== '0';
// Real CPU burnt per request by the demo targets, so the cost panel has something to show (8 workers × 1 ms of 20 ms: at most 0.4 of a core).
const DEMO_CPU_MS = 1;
const DATA_DIR = env.KNEEBOARD_DATA_DIR ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '.data/clickhouse');
const TOKENS = demoTokens(env);

const children = [];
const colours = { api: 36, web: 35, target: 33, 'target v1.1': 33, sweep: 32 };

function run(name, args, extraEnv = {}) {
  // Each child leads its own process group, so stopping it stops what pnpm started under it too.
  const child = spawn('pnpm', args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const tag = `\x1b[${colours[name]}m[${name}]\x1b[0m `;
  const forward = (stream, out) => {
    let rest = '';
    stream.on('data', (d) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) out.write(tag + line + '\n');
    });
  };
  forward(child.stdout, process.stdout);
  forward(child.stderr, process.stderr);
  children.push(child);
  return child;
}

async function waitFor(url, what, child, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}; see its output above`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(250);
  }
  throw new Error(`${what} did not answer at ${url} within ${timeoutMs / 1000} s`);
}

function stopAll(code) {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM'); // the group is already gone; make sure the leader is too
    }
  }
  setTimeout(() => process.exit(code), 1500).unref();
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  const api = run('api', ['--filter', '@kneeboard/api', 'start'], {
    PORT: String(API_PORT),
    LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
    KNEEBOARD_DATA_DIR: DATA_DIR,
    ...(TOKENS.adminToken ? { KNEEBOARD_ADMIN_TOKEN: TOKENS.adminToken } : {}),
  });
  const web = run('web', ['--filter', '@kneeboard/web', 'start', '--port', String(WEB_PORT), '--hostname', '127.0.0.1'], { KNEEBOARD_API_URL: API });
  const target = run('target', ['--filter', '@kneeboard/demo-target', 'start', '--workers', '8', '--service-ms', '20', '--cpu-ms', String(DEMO_CPU_MS), '--port', String(TARGET_PORT)]);
  const nextTarget = run('target v1.1', ['--filter', '@kneeboard/demo-target', 'start', '--workers', '12', '--service-ms', '20', '--cpu-ms', String(DEMO_CPU_MS), '--port', String(NEXT_TARGET_PORT)]);
  await Promise.all([
    waitFor(`${API}/healthz`, 'the API', api),
    waitFor(WEB, 'the web app', web),
    waitFor(`${TARGET}/healthz`, 'the demo target', target),
    waitFor(`${NEXT_TARGET}/healthz`, 'the second demo target', nextTarget),
  ]);
  console.log(`\n  Kneeboard is up: ${WEB}   (API ${API}, data in ${DATA_DIR}; demo targets ${TARGET}, ${NEXT_TARGET})`);
  if (TOKENS.generated) console.log(`  Tokens are required: the admin token of this session (set KNEEBOARD_ADMIN_TOKEN to keep one; the demo sweeps use it too):\n\n    ${TOKENS.adminToken}\n`);
  console.log('  Ctrl-C stops everything.\n');
  if (DEMO) {
    const sweep = (target, release, name) =>
      new Promise((resolve) => {
        const child = run('sweep', [
          'kneeboard', 'sweep', '--target', target, '--levels', '1,2,4,8,16,32,64', '--duration', '6s', '--warmup', '1s',
          '--service', 'demo-target', '--release', release, '--name', name, '--api', API, '--web', WEB,
          // What each level costs the target (the run page's "What it costs"): its own /metrics; one Node process is one core.
          '--metrics-url', `${target}/metrics`, '--cores', '1',
        ], TOKENS.sweepToken ? { KNEEBOARD_TOKEN: TOKENS.sweepToken } : {});
        child.on('exit', resolve);
      });
    const first = await sweep(TARGET, 'v1.0.0', 'demo sweep (8 workers, 20 ms)');
    const second = first === 0 ? await sweep(NEXT_TARGET, 'v1.1.0', 'demo sweep (12 workers, 20 ms)') : first;
    console.log(
      second === 0
        ? `\n  Demo sweeps done. Compare the two releases: ${WEB}/services/demo-target\n`
        : `\n  A demo sweep exited with ${second}\n`,
    );
  }
} catch (err) {
  console.error(`\n  kneeboard: ${err instanceof Error ? err.message : String(err)}\n`);
  stopAll(1);
}
