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
  // for every request at once: W = 2,000 slots × 500 ± 250 ms (jitter, so the 1,000 requests do not
  // all come back in the same millisecond, wave after wave).
  [fake, target] = await Promise.all([FakeApi.start(), startTargetProcess(['--workers', '2000', '--service-ms', '500', '--jitter-ms', '250'])]);
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
      durationMs: 1_000,
      warmupMs: 700,
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
    // 1,000 ÷ 0.5 s = 2,000 req/s on an idle box; a loaded one stretches the target's 500 ms (1,358
    // seen in CI at ~740 ms a request). A pool of 512 would give ≤ 1,024, so 1,100 still tells a
    // cap from a busy machine; the in-flight checks above are the exact ones.
    expect(s!.qps).toBeGreaterThan(1_100);
    expect(s!.qps).toBeLessThan(2_400);
    expect(fake.events(result.runId).length).toBe(result.upload.recorded);
  });
});
