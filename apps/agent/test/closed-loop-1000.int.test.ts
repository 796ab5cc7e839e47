import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeApi } from '@kneeboard/agent-sdk/testing';
import { runSweep } from '../src/index.ts';
import { startTargetProcess, type TargetProcess } from './support/demo-target-process.ts';
import { ENGINES } from './support/engines.ts';

let fake: FakeApi;
let target: TargetProcess;
beforeEach(async () => {
  // Its own process (a fresh one per engine, so its maximum in flight is this engine's), with room
  // for every request at once: W = 2,000 slots × 2,000 ± 1,000 ms. The service time is long against
  // the time the first wave takes to connect: at 500 ± 250 ms the Node engine's first requests came
  // back before its last connections were open on a box with the other core busy (881 seen at once).
  // The wide jitter spreads the waves out by the window, so Little's law is not read off a window that
  // happens to hold one wave more or less (simulated: 990–1,090 for 0–500 ms of added latency).
  [fake, target] = await Promise.all([FakeApi.start(), startTargetProcess(['--workers', '2000', '--service-ms', '2000', '--jitter-ms', '1000'])]);
});
afterEach(async () => {
  await target.stop();
  await fake.close();
});

describe.each(ENGINES)('closed loop at concurrency 1,000 on the %s engine', (engine) => {
  it('holds 1,000 requests in flight at the target — not a pool size, a CPU count or a socket limit', async () => {
    const result = await runSweep({
      engine,
      target: `${target.url}/`,
      levels: [1_000],
      durationMs: 4_000,
      warmupMs: 2_500,
      run: { service: 'demo', release: 'c1000' },
      api: fake.url,
      spoolDir: mkdtempSync(join(tmpdir(), 'kb-c1000-spool-')),
    });
    const [s] = result.levels;
    // The target saw ~1,000 at once, never more (with jittered service times a few may already be
    // back and on their way again when the last connections of the first wave land).
    const { maxInFlight } = await target.stats();
    expect(maxInFlight).toBeLessThanOrEqual(1_000);
    expect(maxInFlight).toBeGreaterThanOrEqual(990);
    // The agent's direct count and Little's law agree: ~1,000 on the wire all through the window.
    // The direct count is sampled on the event loop, and the samples that land while 1,000 responses
    // are handled in a burst read low on a busy 2-core box (883 seen in CI), so it gets a looser
    // bound than Little's law, which counts every request.
    expect(s!.health.in_flight_mean!).toBeGreaterThan(800);
    expect(s!.in_flight!).toBeGreaterThan(950);
    // 1,000 ÷ 2 s = 500 req/s on an idle box; a loaded one stretches each request by a few hundred
    // ms (~240 ms seen in CI). A pool of 512 would give ≤ 256, so 350 still tells a cap from a busy
    // machine; the in-flight checks above are the exact ones.
    expect(s!.qps).toBeGreaterThan(350);
    expect(s!.qps).toBeLessThan(600);
    expect(fake.events(result.runId).length).toBe(result.upload.recorded);
  });
});
