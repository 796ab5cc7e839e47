#!/usr/bin/env node
// Starts the whole product on the embedded default: the API (chDB under .data/), the web app, a demo
// target, and a demo sweep, so the first page opened shows a curve growing. Ctrl-C stops everything.
// Plain Node with no dependencies: it runs before anything is built.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const env = process.env;
const API_PORT = Number(env.KNEEBOARD_API_PORT ?? 4000);
const WEB_PORT = Number(env.KNEEBOARD_WEB_PORT ?? 3000);
const TARGET_PORT = Number(env.KNEEBOARD_DEMO_PORT ?? 4100);
const API = `http://127.0.0.1:${API_PORT}`;
const WEB = `http://127.0.0.1:${WEB_PORT}`;
const TARGET = `http://127.0.0.1:${TARGET_PORT}`;
const DEMO = env.KNEEBOARD_DEMO !== '0';

const children = [];
const colours = { api: 36, web: 35, target: 33, sweep: 32 };

function run(name, args, extraEnv = {}) {
  const child = spawn('pnpm', args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 1500).unref();
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  const api = run('api', ['--filter', '@kneeboard/api', 'start'], { PORT: String(API_PORT), LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  const web = run('web', ['--filter', '@kneeboard/web', 'start', '--port', String(WEB_PORT), '--hostname', '127.0.0.1'], { KNEEBOARD_API_URL: API });
  const target = run('target', ['--filter', '@kneeboard/demo-target', 'start', '--workers', '8', '--service-ms', '20', '--port', String(TARGET_PORT)]);
  await Promise.all([waitFor(`${API}/healthz`, 'the API', api), waitFor(WEB, 'the web app', web), waitFor(`${TARGET}/healthz`, 'the demo target', target)]);
  console.log(`\n  Kneeboard is up: ${WEB}   (API ${API}, demo target ${TARGET})\n`);
  if (DEMO) {
    const sweep = run('sweep', [
      'kneeboard', 'sweep', '--target', TARGET, '--levels', '1,2,4,8,16,32,64', '--duration', '5s', '--warmup', '1s',
      '--service', 'demo-target', '--release', 'v1.0.0', '--name', 'demo sweep (8 workers, 20 ms)', '--api', API, '--web', WEB,
    ]);
    sweep.on('exit', (code) => console.log(code === 0 ? `\n  Demo sweep done. Open ${WEB}\n` : `\n  Demo sweep exited with ${code}\n`));
  }
  console.log('  Ctrl-C stops everything.\n');
} catch (err) {
  console.error(`\n  kneeboard: ${err instanceof Error ? err.message : String(err)}\n`);
  stopAll(1);
}
