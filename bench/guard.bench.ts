/**
 * The two stalls of issue 15 item 2, reproduced against a real API process: GET /runs/{id}
 * latency while (a) six concurrent comparisons with seven heads run, and (b) 150 live streams on
 * 150 running runs sit idle. Run it against this tree and an older one to compare:
 *
 *   flock /tmp/kb-bench.lock pnpm tsx bench/guard.bench.ts                         # this tree → results/guard-after.json
 *   KB_API_DIR=/path/to/old/apps/api KB_LABEL=before pnpm tsx bench/guard.bench.ts  # another tree
 *
 * KB_EVENTS sets the events per run (default 300,000; the probe used 1.2M).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, setGlobalDispatcher } from 'undici';
import { createRun, freePort, postJson, storeSyntheticRun } from '@kneeboard/api/testing';
import { cpuSeconds } from './lib/process-cpu.ts';
import { quantile, report } from './lib/report.ts';

// A queued comparison may wait minutes on a loaded box: no client-side header timeout (fetch's is 300 s).
setGlobalDispatcher(new Agent({ headersTimeout: 0, bodyTimeout: 0 }));

const apiDir = resolve(process.env.KB_API_DIR ?? fileURLToPath(new URL('../apps/api/', import.meta.url)));
const label = process.env.KB_LABEL ?? 'after';
const events = Number(process.env.KB_EVENTS ?? 300_000);
const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-guard-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The API of `apiDir` as its own process (its own tsx), with room for 150 streams from this one client. */
async function startApi() {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(apiDir, 'src/server.ts')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_LIVE_PER_CLIENT: '200' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (i > 600) throw new Error('API did not start');
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
}

/** GET /runs/{id} latencies, one request every 250 ms until `until` settles. */
async function probe(url: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const ms: number[] = [];
  while (!done) {
    const t = performance.now();
    await (await fetch(url)).arrayBuffer();
    ms.push(performance.now() - t);
    await sleep(250);
  }
  return ms;
}

function openStream(url: string): Promise<{ status: number; close: () => void }> {
  return new Promise((resolveStream, reject) => {
    const req = request(url, (res) => {
      res.resume();
      resolveStream({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

const api = await startApi();
const rows: Array<Record<string, string | number>> = [];
try {
  // 5 levels; at levels ≥ 4 a 1 ms server of 4 workers does 4,000 requests/s.
  const seconds = Math.max(1, Math.round(events / 15_000));
  const base = await storeSyntheticRun(api.url, { seed: 1, release: 'v1', service: 'bench-guard', serviceMs: 1, seconds });
  const head = await storeSyntheticRun(api.url, { seed: 2, release: 'v2', service: 'bench-guard', serviceMs: 1, seconds, latencyScale: 1.1 });
  const runUrl = `${api.url}/api/v1/runs/${base}`;
  const idle = await probe(runUrl, sleep(3000));
  rows.push({ scenario: 'idle', requests: 0, ok: 0, refused: 0, 'compare s (max)': 0, 'GET /runs p50 ms': quantile(idle, 0.5), 'GET /runs max ms': Math.max(...idle), 'api cores': 0 });

  for (const kind of ['6× same compare', '6× different compare']) {
    const qs = (i: number) => `base=${base}${Array.from({ length: 7 }, () => `&head=${head}`).join('')}&min_effect=${kind.includes('same') ? 0.05 : 0.01 * (i + 1)}`;
    const cpu0 = cpuSeconds(api.child.pid as number);
    const t0 = performance.now();
    const burst = Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const t = performance.now();
        const res = await fetch(`${api.url}/api/v1/compare?${qs(i)}`);
        await res.arrayBuffer();
        return { status: res.status, s: (performance.now() - t) / 1000 };
      }),
    );
    const latencies = await probe(runUrl, burst);
    const answers = await burst;
    const wall = (performance.now() - t0) / 1000;
    rows.push({
      scenario: kind,
      requests: 6,
      ok: answers.filter((a) => a.status === 200).length,
      refused: answers.filter((a) => a.status === 429).length,
      'compare s (max)': Math.max(...answers.map((a) => a.s)),
      'GET /runs p50 ms': quantile(latencies, 0.5),
      'GET /runs max ms': Math.max(...latencies),
      'api cores': (cpuSeconds(api.child.pid as number) - cpu0) / wall,
    });
  }

  // 150 running runs, each with a step and a batch, each watched by one idle stream.
  const t = Date.now();
  const running = await Promise.all(Array.from({ length: 150 }, () => createRun(api.url, { service: 'bench-live' })));
  for (const id of running) {
    await postJson(`${api.url}/api/v1/runs/${id}/steps`, { level: 1, started_at: t, measure_from: t });
    await postJson(`${api.url}/api/v1/runs/${id}/events`, { batch_id: 'b', agent_id: 'a', level: [1, 1], ts_ms: [t + 1, t + 2], latency_ms: [1, 2], compute_ms: [null, null], queue_ms: [null, null], status: [200, 200] });
  }
  const streams = await Promise.all(running.map((id) => openStream(`${api.url}/api/v1/runs/${id}/live`)));
  await sleep(3000);
  const cpu0 = cpuSeconds(api.child.pid as number);
  const latencies = await probe(runUrl, sleep(10_000));
  rows.push({
    scenario: '150 idle live streams',
    requests: streams.length,
    ok: streams.filter((s) => s.status === 200).length,
    refused: streams.filter((s) => s.status === 429).length,
    'compare s (max)': 0,
    'GET /runs p50 ms': quantile(latencies, 0.5),
    'GET /runs max ms': Math.max(...latencies),
    'api cores': (cpuSeconds(api.child.pid as number) - cpu0) / 10,
  });
  for (const s of streams) s.close();
  report(`guard-${label}`, rows, { api_dir: apiDir, events_per_run: events });
} finally {
  api.child.kill('SIGTERM');
  await sleep(500);
  rmSync(dataDir, { recursive: true, force: true });
}
