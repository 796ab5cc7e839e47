/**
 * Cores used by the demo target under load, read two ways over the same 5 s: its own `/metrics`
 * (the `--metrics-url` path) and `/proc/PID/stat` (the `--target-pid` path), both through
 * measureWindow with the default selectors. Issue 28 asks for agreement within 5%.
 * Run: `npx tsx bench/cost-agreement.bench.ts [cpuMs=5] [concurrency=4]` from packages/server-metrics.
 * Bounded: 5 s of closed-loop load on loopback, then the target is stopped.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { measureWindow, parseExposition, scrapeProcess, type Scrape } from '../src/index.ts';

async function main(): Promise<void> {
  const cpuMs = Number(process.argv[2] ?? 5);
  const concurrency = Number(process.argv[3] ?? 4);
  const cwd = fileURLToPath(new URL('../../../apps/demo-target/', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0', '-w', '4', '-s', '0', '--cpu-ms', String(cpuMs)], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  let url = '';
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /listening on (\S+)/.exec(line);
    if (m) {
      url = m[1]!;
      break;
    }
  }
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency + 1 });
  const get = (path: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request(url + path, { agent }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
  const fromMetrics: Scrape[] = [];
  const fromProc: Scrape[] = [];
  let stop = false;
  let served = 0;
  const loops = Array.from({ length: concurrency }, async () => {
    while (!stop) {
      await get('/work');
      served += 1;
    }
  });
  const t0 = Date.now();
  while (Date.now() - t0 < 5000) {
    fromProc.push(await scrapeProcess(child.pid!));
    const body = await get('/metrics');
    fromMetrics.push({ atMs: Date.now(), samples: parseExposition(body).samples });
    await new Promise((r) => setTimeout(r, 1000));
  }
  stop = true;
  await Promise.all(loops);
  const window = { startMs: fromProc[0]!.atMs, endMs: Date.now() };
  const a = measureWindow(fromMetrics, window);
  const b = measureWindow(fromProc, window);
  const seconds = (window.endMs - t0) / 1000;
  console.log(
    JSON.stringify({
      cpuMs,
      concurrency,
      reqPerSecond: Math.round(served / seconds),
      coresFromMetrics: a.values.cpu!.value,
      coresFromProc: b.values.cpu!.value,
      relativeDifference: Math.abs(a.values.cpu!.value! / b.values.cpu!.value! - 1),
      cpuMsPerRequest: (a.values.cpu!.value! * 1000) / (served / seconds),
      peakRssFromMetrics: a.values.mem!.value,
      peakRssFromProc: b.values.mem!.value,
      messages: [...a.messages, ...b.messages],
    }),
  );
  agent.destroy();
  child.kill('SIGTERM');
}

await main();
