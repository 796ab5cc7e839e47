/**
 * How far behind the live curve is: the time from a request completing in the agent to its
 * appearance in a `snapshot` on GET /api/v1/runs/{id}/live, with the real agent CLI sweeping the
 * demo target into the real API (three processes on loopback).
 *
 * Each snapshot shows the in-progress level's window up to its newest request (measure_from +
 * window_s). Requests that completed between two snapshots' newest times appeared with the
 * second; their delay runs from (arrival − newest) to (arrival − previous newest).
 *
 *   pnpm tsx bench/live-latency.bench.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '@kneeboard/api/testing';
import { ListRunsResponse } from '@kneeboard/contracts';
import { startDemoTarget } from '@kneeboard/demo-target';
import { KNEEBOARD } from './agent-bench-lib.ts';
import { newestShown, readLiveSnapshots } from './lib/live-snapshots.ts';
import { quantile, report } from './lib/report.ts';


const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-live-'));
const [api, target] = await Promise.all([startServerProcess({ KNEEBOARD_DATA_DIR: dataDir }), startDemoTarget({ workers: 8, serviceMs: 10, port: 0 })]);
try {
  const agent = spawn(
    process.execPath,
    [KNEEBOARD, 'sweep', '--target', target.url, '--levels', '4,8,16', '--duration', '6s', '--warmup', '500ms', '--service', 'bench', '--release', 'live', '--api', api.url],
    { stdio: 'ignore' },
  );
  const agentDone = new Promise((resolve) => agent.on('close', resolve));

  let runId: string | undefined;
  while (!runId) {
    runId = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs`)).json()).runs[0]?.id;
    await new Promise((r) => setTimeout(r, 50));
  }

  const freshness: number[] = [];
  const worst: number[] = [];
  const mean: number[] = [];
  const previousNewest = new Map<number, number>();
  const res = await fetch(`${api.url}/api/v1/runs/${runId}/live`);
  let snapshots = 0;
  await readLiveSnapshots(res.body as ReadableStream<Uint8Array>, (detail, arrival) => {
    snapshots++;
    for (const { level, newest } of newestShown(detail)) {
      const prev = previousNewest.get(level);
      previousNewest.set(level, newest);
      if (prev === undefined || newest <= prev) continue;
      freshness.push(arrival - newest);
      worst.push(arrival - prev);
      mean.push(arrival - (prev + newest) / 2);
    }
  });
  await agentDone;

  report(
    'live-latency',
    [
      { measure: 'newest request → on screen, p50 ms', value: quantile(freshness, 0.5) },
      { measure: 'newest request → on screen, p99 ms', value: quantile(freshness, 0.99) },
      { measure: 'average request → on screen, p50 ms', value: quantile(mean, 0.5) },
      { measure: 'oldest request of an update → on screen, p50 ms', value: quantile(worst, 0.5) },
      { measure: 'oldest request of an update → on screen, max ms', value: Math.max(...worst) },
      { measure: 'snapshots received', value: snapshots },
    ],
    { levels: [4, 8, 16], updates: freshness.length },
  );
} finally {
  await Promise.all([api.stop(), target.close()]);
  rmSync(dataDir, { recursive: true, force: true });
}
