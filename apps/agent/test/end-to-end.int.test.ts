import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoTarget, type DemoTarget } from '@kneeboard/demo-target';
import { ListRunsResponse, RunDetail } from '@kneeboard/contracts';
import { startServerProcess, type ServerProcess } from '@kneeboard/api/testing';
import { runCli } from './support/run-cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kb-e2e-'));
let api: ServerProcess;
let target: DemoTarget;

// Start-up and the sweep get room for a loaded box (the API alone was seen to take over 30 s to
// start there): bounds on a hang, not on speed.
beforeAll(async () => {
  [api, target] = await Promise.all([startServerProcess({ KNEEBOARD_DATA_DIR: dataDir }, 120_000), startDemoTarget({ workers: 4, serviceMs: 20, port: 0 })]);
}, 150_000);
afterAll(async () => {
  await Promise.all([api?.stop(), target?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('agent → API → ClickHouse → curve, against a server with a known answer (W=4, S=20 ms)', () => {
  it('draws the queueing curve: 200 QPS above the knee, 20 ms below it, queue growing above it', async () => {
    const result = await runCli(
      ['sweep', '--target', target.url, '--levels', '1,2,4,8,16', '--duration', '3s', '--warmup', '1s', '--service', 'demo', '--release', 'e2e', '--api', api.url],
      240_000,
    ).done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const { runs } = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=demo`)).json());
    expect(runs).toHaveLength(1);
    const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runs[0]?.id}`)).json());
    expect(detail.run.status).toBe('finished');
    expect(detail.curve.map((p) => p.level)).toEqual([1, 2, 4, 8, 16]);
    const at = (level: number) => detail.curve.find((p) => p.level === level);

    // Ground truth: max throughput W·1000/S = 200 QPS at and above the knee (concurrency 4). A busy
    // box stretches the target's 20 ms (its timers fire late, never early), so the numbers are told
    // against the compute time the target itself reported: 200 QPS is a ceiling no box can pass, nor
    // more than W requests in service, QPS × compute ≤ W (p50 standing in for the mean). How close a
    // busy box lets it come is speed, measured in bench/.
    for (const level of [8, 16]) {
      const p = at(level)!;
      expect(p.qps).toBeLessThan(200 * 1.02);
      const busySlots = (p.qps * p.compute_p50_ms!) / 1000;
      expect(busySlots).toBeLessThan(4 * 1.1);
    }
    // Below the knee nothing queues (a request always finds a slot), and latency is at least S.
    expect(at(1)?.p50_ms).toBeGreaterThanOrEqual(20 * 0.99);
    expect(at(1)?.queue_p50_ms).toBeLessThan(1);
    // Above the knee latency ≈ c·S/W: the growth is queueing, compute stays at S.
    const queueShare = (level: number) => (at(level)?.queue_p50_ms ?? 0) / (at(level)?.p50_ms ?? 1);
    expect(queueShare(4)).toBeLessThan(0.1);
    expect(queueShare(8)).toBeGreaterThan(queueShare(4));
    expect(queueShare(16)).toBeGreaterThan(queueShare(8));
    // Compute stays at S on average; each busy slot's request is S less its predecessor's overrun plus
    // its own, so single ones straddle S (a quiet box: p10 19.1, p50 20.0, mean 20.00 ms) and a busy
    // box's bigger overruns can pull the median a few tenths below (19.75 was seen).
    expect(at(16)?.compute_p50_ms).toBeGreaterThanOrEqual(20 * 0.97);
    // At 16 each request waits behind ~3 others for one of 4 slots: at least one more service time
    // than its own (the client's turnaround shortens the wait, a busy box's delays lengthen it).
    expect(at(16)!.p50_ms!).toBeGreaterThan(2 * at(16)!.compute_p50_ms!);
    for (const p of detail.curve) {
      expect(p.errors).toBe(0);
      // The agent reports its own health per step, and explains any step it could not hold: never
      // more on the wire than c, and under 90% of c (a busy box can do that) is never shown clean.
      expect(p.health?.target).toBe(p.level);
      const inFlight = p.health?.in_flight_mean as number;
      expect(inFlight).toBeLessThanOrEqual(p.level + 1e-9);
      if (inFlight < 0.9 * p.level - 0.001) expect(p.health?.generator_limited).toBe(true);
      expect(p.health?.reason === null).toBe(p.health?.generator_limited === false);
    }

    // (Where the analysis puts the knee of a curve a loaded box measured is the box's as much as the
    // target's — 8, or none, was seen: the knee rules are unit-tested on known curves in packages/analysis.)
    // Every request the agent recorded was uploaded; the windows hold all but the warm-up.
    const [, recorded, uploaded] = /(\d+) requests recorded, (\d+) uploaded/.exec(result.stdout) ?? [];
    expect(Number(uploaded)).toBe(Number(recorded));
    expect(runs[0]?.requests).toBeLessThan(Number(recorded));
    expect(runs[0]?.requests).toBe(detail.curve.reduce((n, p) => n + p.requests, 0));
    expect(runs[0]?.requests).toBeGreaterThan(0);
  }, 300_000);
});
