import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
// The parser the agent will use to read a target's /metrics.
import { measureWindow, parseExposition, type Scrape } from '@kneeboard/server-metrics';
import { startDemoTarget, type DemoTarget } from '../src/index.ts';
import { timedGet } from './http-get.ts';

let target: DemoTarget | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
  child?.kill('SIGKILL');
  child = undefined;
});

/** One GET /metrics, parsed; fails the test on any bad line. */
async function scrape(url: string): Promise<{ scrape: Scrape; cpu: number; rss: number; served: number; contentType: string }> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  const body = await res.text();
  const atMs = Date.now();
  const e = parseExposition(body);
  expect(e.bad).toEqual({ count: 0, examples: [] });
  expect(e.types.get('process_cpu_seconds_total')).toBe('counter');
  expect(e.types.get('process_resident_memory_bytes')).toBe('gauge');
  expect(e.types.get('demo_target_requests_served_total')).toBe('counter');
  const value = (name: string) => {
    const found = e.samples.filter((s) => s.name === name);
    expect(found).toHaveLength(1);
    return found[0]!.value;
  };
  return {
    scrape: { atMs, samples: e.samples },
    cpu: value('process_cpu_seconds_total'),
    rss: value('process_resident_memory_bytes'),
    served: value('demo_target_requests_served_total'),
    contentType: res.headers.get('content-type') ?? '',
  };
}

// /metrics prints CPU seconds with 6 decimals: two rounded reads differ from the truth by ≤ 1 µs.
const ROUNDING_S = 2e-6;

describe('GET /metrics and --cpu-ms', () => {
  it('serves the Prometheus text format without taking a slot, and CPU grows by at least cpuMs per request', async () => {
    const cpuMs = 20;
    const n = 10;
    target = await startDemoTarget({ workers: 1, serviceMs: 0, cpuMs, port: 0 });
    const before = await scrape(target.url);
    expect(before.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(before.rss).toBeGreaterThan(1024 * 1024);
    expect(before.served).toBe(0);
    for (let i = 0; i < n; i += 1) expect((await timedGet(`${target.url}/work`)).status).toBe(200);
    const after = await scrape(target.url);

    expect(after.served).toBe(n);
    expect(target.stats().served).toBe(n); // /metrics itself took no slot
    const spent = after.cpu - before.cpu;
    expect(spent).toBeGreaterThanOrEqual((n * cpuMs) / 1000 - ROUNDING_S);
    // The target shares this process with the test's client: loose above.
    expect(spent).toBeLessThan((n * cpuMs) / 1000 + 2);
    // The default selectors over the two scrapes: cores used × window = CPU-seconds spent.
    const cost = measureWindow([before.scrape, after.scrape], { startMs: before.scrape.atMs, endMs: after.scrape.atMs }, undefined, { intervalMs: 60_000 });
    expect(cost.values.cpu!.value! * ((after.scrape.atMs - before.scrape.atMs) / 1000)).toBeCloseTo(spent, 9);
    expect(cost.values.mem!.value).toBe(Math.max(before.rss, after.rss));
  });

  it('burns nothing by default: the counter still parses and the served counter survives resetStats()', async () => {
    target = await startDemoTarget({ workers: 2, serviceMs: 1, port: 0 });
    await timedGet(`${target.url}/a`);
    target.resetStats();
    await timedGet(`${target.url}/b`);
    const m = await scrape(target.url);
    expect(m.served).toBe(2);
    expect(target.stats().served).toBe(1);
    expect(m.cpu).toBeGreaterThan(0);
  });
});

describe('the CLI with --cpu-ms', () => {
  const cwd = fileURLToPath(new URL('..', import.meta.url));
  const start = (args: string[]) => spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

  it('burns at least N ms of the target process CPU per request', async () => {
    const cpuMs = 25;
    const n = 8;
    child = start(['--port', '0', '--service-ms', '0', '--cpu-ms', String(cpuMs)]);
    const lines = createInterface({ input: child.stdout! });
    const banner: string[] = [];
    let url = '';
    for await (const line of lines) {
      banner.push(line);
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) url = m[1]!;
      if (line.includes('GET /metrics')) break;
    }
    expect(banner.join('\n')).toContain(`burns ${cpuMs} ms of CPU per request (at most 40.0 req/s on one core)`);
    const before = await scrape(url);
    for (let i = 0; i < n; i += 1) expect((await timedGet(`${url}/work`)).status).toBe(200);
    const after = await scrape(url);
    const spent = after.cpu - before.cpu;
    expect(after.served - before.served).toBe(n);
    expect(spent).toBeGreaterThanOrEqual((n * cpuMs) / 1000 - ROUNDING_S);
    // Only the target runs in this process; serving and two scrapes cost far less than a second.
    expect(spent).toBeLessThan((n * cpuMs) / 1000 + 1);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('rejects a negative --cpu-ms naming the flag, exit 2', async () => {
    child = start(['--cpu-ms', '-1']);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/--cpu-ms/);
  });
});
