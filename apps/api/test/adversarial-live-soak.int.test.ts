import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../testing/spawn.ts';
import { medianRss, runLiveSoak } from '../testing/index.ts';

/**
 * Issue 11.6, short form: 20 live viewers on a run that takes a batch every 250 ms for 60 s; the
 * API's resident memory late in the run stays within a bound of what it was once warm. The
 * 10-minute version with the figures is bench/soak-live.bench.ts.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'kb-live-soak-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('20 live viewers during ingest', () => {
  it('keep their streams and do not make the API grow', async () => {
    const api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_LIVE_PER_CLIENT: '64' }, 180_000);
    try {
      const pid = api.child.pid as number;
      const result = await runLiveSoak({ url: api.url, pid, viewers: 20, durationMs: 60_000, sampleEveryMs: 2_000 });
      const warm = medianRss(result.samples, 0.2, 0.4);
      const late = medianRss(result.samples, 0.8, 1.01);
      console.log(`live soak: ${result.events} events, ${result.snapshots} snapshots to 20 viewers, rss warm ${warm} MB → late ${late} MB`);
      expect(result.viewersLost).toBe(0);
      expect(result.events).toBeGreaterThan(0);
      // Every viewer saw the run change more than once (shared updates reach all of them).
      expect(result.snapshots).toBeGreaterThan(20 * 2);
      // Growth bound: a leak per viewer or per update would pass this within a minute of updates.
      expect(late - warm).toBeLessThan(Math.max(96, warm * 0.25));
    } finally {
      await api.stop();
    }
  }, 600_000);
});
