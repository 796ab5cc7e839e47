/**
 * Issue 11.6: 20 live viewers during ingest for 10 minutes (SOAK_MINUTES to change), the API's
 * resident memory printed every 10 s and written to bench/results/soak-live.json. The real API
 * process with embedded ClickHouse on loopback; one agent posts 2,000 events every 250 ms.
 *
 *   flock /tmp/kb-bench.lock pnpm --filter @kneeboard/bench exec tsx soak-live.bench.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { medianRss, runLiveSoak, startServerProcess } from '@kneeboard/api/testing';

const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const viewers = Number(process.env.SOAK_VIEWERS ?? 20);
const dataDir = mkdtempSync(join(tmpdir(), 'kb-bench-soak-'));
const api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_LIVE_PER_CLIENT: String(viewers * 2) }, 180_000);
try {
  console.log(' t_s  rss_mb    events  snapshots');
  const result = await runLiveSoak({
    url: api.url,
    pid: api.child.pid as number,
    viewers,
    durationMs: minutes * 60_000,
    sampleEveryMs: 10_000,
    onSample: (s) => console.log(`${String(s.t_s).padStart(4)}  ${String(s.rss_mb).padStart(6)}  ${String(s.events).padStart(8)}  ${String(s.snapshots).padStart(9)}`),
  });
  const warm = medianRss(result.samples, 0.1, 0.2);
  const late = medianRss(result.samples, 0.9, 1.01);
  const summary = { minutes, viewers, events: result.events, snapshots: result.snapshots, viewers_lost: result.viewersLost, rss_warm_mb: warm, rss_late_mb: late, rss_max_mb: Math.max(...result.samples.map((s) => s.rss_mb)), samples: result.samples };
  console.log(`\n${viewers} viewers, ${minutes} min: ${result.events} events, ${result.snapshots} snapshots, rss ${warm} MB (10–20%) → ${late} MB (last 10%), max ${summary.rss_max_mb} MB, ${result.viewersLost} viewers lost`);
  writeFileSync(fileURLToPath(new URL('./results/soak-live.json', import.meta.url)), `${JSON.stringify(summary, null, 2)}\n`);
} finally {
  await api.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
