import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CGROUP_SELECTOR_TEXTS,
  clockTicksPerSecond,
  parseCgroupCpuStat,
  parseMemoryCurrent,
  parseProcStat,
  parseProcStatusRss,
  readCgroupUsage,
  readProcessUsage,
  scrapeCgroup,
  scrapeProcess,
} from '../src/proc.ts';
import { parseSelectors } from '../src/selector.ts';
import { measureWindow } from '../src/window.ts';

/** utime/stime are whole clock ticks; allow two ticks of rounding either way. */
const TICK_S = 1 / clockTicksPerSecond();

describe('parsing (pure)', () => {
  it('reads utime and stime after a command name holding spaces and parentheses', () => {
    const stat = '4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 1234 0 0 0 731 269 0 0 20 0 7 0 12345 1000000 500 18446744073709551615';
    expect(parseProcStat(stat)).toEqual({ utimeTicks: 731, stimeTicks: 269 });
    expect(() => parseProcStat('4242 S 1')).toThrow(/closing/);
    expect(() => parseProcStat('1 (x) S 1 2')).toThrow(/fields 14–15/);
  });

  it('reads VmRSS in bytes, null when absent', () => {
    expect(parseProcStatusRss('Name:\tnode\nVmPeak:\t 999 kB\nVmRSS:\t   51200 kB\nThreads:\t7\n')).toBe(51200 * 1024);
    expect(parseProcStatusRss('Name:\tkthreadd\nThreads:\t1\n')).toBeNull();
  });

  it('reads cgroup v2 cpu.stat and memory.current', () => {
    expect(parseCgroupCpuStat('usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\nnr_periods 0\n')).toEqual({ usage_usec: 2500000, user_usec: 2000000, system_usec: 500000, nr_periods: 0 });
    expect(() => parseCgroupCpuStat('user 1\n')).toThrow(/usage_usec/);
    expect(parseMemoryCurrent('1048576\n')).toBe(1048576);
    expect(() => parseMemoryCurrent('max\n')).toThrow(/byte count/);
  });

  it('reads CLK_TCK once (100 on Linux)', () => {
    expect(clockTicksPerSecond()).toBe(100);
  });
});

describe('/proc/self', () => {
  it('agrees with process.cpuUsage() and memoryUsage()', async () => {
    const before = process.cpuUsage();
    const u = await readProcessUsage('self');
    const after = process.cpuUsage();
    const s = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1e6;
    expect(u.cpuSeconds).toBeGreaterThanOrEqual(s(before) - 2 * TICK_S);
    expect(u.cpuSeconds).toBeLessThanOrEqual(s(after) + 2 * TICK_S);
    expect(u.rssBytes).not.toBeNull();
    // RSS moves as the test runs; both read the same kernel counter within a few MB.
    expect(Math.abs(u.rssBytes! - process.memoryUsage().rss)).toBeLessThan(8 * 1024 * 1024);
  });
});

// A child that burns CPU on command and reports its own CPU time (exact, from getrusage) before
// and after, so what /proc says can be compared with what the child spent, not with wall time.
const CHILD = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1e6; };
console.log(JSON.stringify({ cpu: cpu() }));
rl.on('line', (cmd) => {
  if (cmd === 'exit') process.exit(0);
  const start = cpu();
  const wallEnd = Date.now() + 10000; // bounded even on a starved box
  while (cpu() - start < Number(cmd) / 1000 && Date.now() < wallEnd) {}
  console.log(JSON.stringify({ cpu: cpu() }));
});
`;

let child: ReturnType<typeof spawn> | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

describe('a child that burns 300 ms of CPU', () => {
  it('is read from /proc/PID as the CPU time it reports, and the window gives its cores used', async () => {
    child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const next = async (): Promise<number> => (JSON.parse(String((await lines.next()).value)) as { cpu: number }).cpu;

    const reported0 = await next();
    const scrape0 = await scrapeProcess(child.pid!);
    child.stdin!.write('300\n');
    const reported1 = await next();
    const scrape1 = await scrapeProcess(child.pid!);
    child.stdin!.write('exit\n');

    expect(reported1 - reported0).toBeGreaterThanOrEqual(0.3);
    if ('error' in scrape0 || 'error' in scrape1) throw new Error('scrape failed');
    const cpu0 = scrape0.samples[0]!.value;
    const cpu1 = scrape1.samples[0]!.value;
    // The child idles (blocked on stdin) between its report and our read: /proc says the same time,
    // to the tick, plus whatever its background threads did (a few ms at most).
    expect(cpu0).toBeGreaterThanOrEqual(reported0 - 2 * TICK_S);
    expect(cpu0).toBeLessThanOrEqual(reported0 + 0.05);
    expect(cpu1 - cpu0).toBeGreaterThanOrEqual(reported1 - reported0 - 3 * TICK_S);
    expect(cpu1 - cpu0).toBeLessThanOrEqual(reported1 - reported0 + 0.05);
    expect(scrape1.samples[1]).toMatchObject({ name: 'process_resident_memory_bytes', value: expect.any(Number) });

    // The same reads through the default selectors: cores used × window = CPU-seconds spent.
    const cost = measureWindow([scrape0, scrape1], { startMs: scrape0.atMs, endMs: scrape1.atMs }, undefined, { intervalMs: 60_000 });
    const spanS = (scrape1.atMs - scrape0.atMs) / 1000;
    expect(cost.values.cpu!.value! * spanS).toBeCloseTo(cpu1 - cpu0, 9);
    expect(cost.values.mem!.value).toBeGreaterThan(1024 * 1024);
  });

  it('turns a process that is gone into a named failed scrape, not a throw', async () => {
    child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    const pid = child.pid!;
    await new Promise((r) => child!.once('exit', r));
    const s = await scrapeProcess(pid);
    expect(s).toMatchObject({ error: expect.stringMatching(new RegExp(`^pid ${pid}: .*ENOENT`)) });
  });
});

describe('a cgroup v2 directory', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('reads cpu.stat and memory.current as files, and the cgroup selectors evaluate them', async () => {
    // A directory laid out like a v2 cgroup (a real one is read in apps/agent's server-cost-accuracy test).
    dir = await mkdtemp(join(tmpdir(), 'kb-cgroup-'));
    await writeFile(join(dir, 'memory.current'), '73400320\n');
    await writeFile(join(dir, 'cpu.stat'), 'usage_usec 1000000\nuser_usec 800000\nsystem_usec 200000\n');
    expect(await readCgroupUsage(dir)).toEqual({ cpuSeconds: 1, memoryBytes: 73400320 });
    const s0 = await scrapeCgroup(dir, () => 0);
    await writeFile(join(dir, 'cpu.stat'), 'usage_usec 4000000\nuser_usec 3000000\nsystem_usec 1000000\n');
    const s1 = await scrapeCgroup(dir, () => 2000);
    const cost = measureWindow([s0, s1], { startMs: 0, endMs: 2000 }, parseSelectors(CGROUP_SELECTOR_TEXTS), { intervalMs: 2000 });
    expect(cost.values.cpu!.value).toBe(1.5);
    expect(cost.values.mem!.value).toBe(73400320);
    // Without the memory controller (a hybrid hierarchy keeps it on v1) there is no memory.current:
    // the CPU is still read, and the memory is a gap the selectors name.
    await rm(join(dir, 'memory.current'));
    expect(await readCgroupUsage(dir)).toEqual({ cpuSeconds: 4, memoryBytes: null });
    const s2 = await scrapeCgroup(dir, () => 3000);
    expect(s2).toEqual({ atMs: 3000, samples: [{ name: 'cgroup_cpu_usage_seconds_total', labels: {}, value: 4 }] });
    expect(measureWindow([s2], { startMs: 3000, endMs: 3000 }, parseSelectors(CGROUP_SELECTOR_TEXTS)).values.mem!.value).toBeNull();
    // Without cpu.stat it is no cgroup v2 directory: an error scrape naming the file.
    await rm(join(dir, 'cpu.stat'));
    expect(await scrapeCgroup(dir, () => 4000)).toMatchObject({ atMs: 4000, error: expect.stringContaining('cpu.stat') });
  });
});
