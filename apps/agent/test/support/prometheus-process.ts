import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './real-api.ts';

/**
 * A real Prometheus server (Debian's `prometheus` package; scripts/test.sh installs it) scraping
 * the given targets every second, on loopback, with its data in a temp dir. Resolves once every
 * target has been scraped successfully twice (so `irate` has two samples).
 */
export interface PrometheusProcess {
  url: string;
  stop(): Promise<void>;
}

export function prometheusBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
  if (found === '') throw new Error('the prometheus binary is missing: apt-get install -y prometheus (scripts/test.sh installs it)');
  return found;
}

export async function startPrometheus(targets: Record<string, string>): Promise<PrometheusProcess> {
  const binary = prometheusBinary();
  const dir = mkdtempSync(join(tmpdir(), 'kb-prometheus-'));
  const jobs = Object.entries(targets).map(([job, hostPort]) => `  - job_name: ${job}\n    static_configs:\n      - targets: ['${hostPort}']`);
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n  evaluation_interval: 1s\nscrape_configs:\n${jobs.join('\n')}\n`);
  const port = await freePort();
  const child = spawn(binary, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
    const up = await fetch(`${url}/api/v1/query?query=${encodeURIComponent('count_over_time(up[1m])')}`)
      .then(async (r) => (r.ok ? ((await r.json()) as { data: { result: Array<{ metric: { job: string }; value: [number, string] }> } }).data.result : []))
      .catch(() => []);
    if (Object.keys(targets).every((job) => up.some((r) => r.metric.job === job && Number(r.value[1]) >= 2))) return { url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not scrape ${Object.keys(targets).join(', ')} twice within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
