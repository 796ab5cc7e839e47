/**
 * A target on the agent's own host, read without any exporter: `/proc/PID/stat` (utime + stime)
 * and `/proc/PID/status` (VmRSS) for a process, `cpu.stat` (usage_usec) and `memory.current` for a
 * cgroup v2 directory. Parsing is pure; the readers are thin and return the same Sample shape the
 * exposition parser does, so one set of selectors and one window evaluation serve every source.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sample } from './exposition.ts';
import type { Scrape } from './window.ts';

/** The metric names a process read is exposed under: the defaults (`cpu`, `mem`) then work as is. */
export const PROCESS_CPU_METRIC = 'process_cpu_seconds_total';
export const PROCESS_RSS_METRIC = 'process_resident_memory_bytes';
/** The names a cgroup read is exposed under; see CGROUP_SELECTOR_TEXTS. */
export const CGROUP_CPU_METRIC = 'cgroup_cpu_usage_seconds_total';
export const CGROUP_MEMORY_METRIC = 'cgroup_memory_current_bytes';
export const CGROUP_SELECTOR_TEXTS = [`cpu=rate(${CGROUP_CPU_METRIC})`, `mem=max(${CGROUP_MEMORY_METRIC})`] as const;

/** utime and stime of `/proc/PID/stat`, in clock ticks (fields 14 and 15). */
export function parseProcStat(text: string): { utimeTicks: number; stimeTicks: number } {
  // Field 2, (comm), may hold spaces and parentheses: the fields after it start after the LAST ')'.
  const close = text.lastIndexOf(')');
  if (close === -1) throw new Error('/proc stat: no ")" closing the command name');
  const rest = text.slice(close + 1).trim().split(/\s+/);
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  const utime = Number(rest[14 - 3]);
  const stime = Number(rest[15 - 3]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error('/proc stat: fields 14–15 (utime, stime) are not integers');
  return { utimeTicks: utime, stimeTicks: stime };
}

/** VmRSS of `/proc/PID/status`, in bytes; null when absent (a kernel thread or a zombie has none). */
export function parseProcStatusRss(text: string): number | null {
  const m = /^VmRSS:\s+(\d+)\s+kB\s*$/m.exec(text);
  return m ? Number(m[1]) * 1024 : null;
}

/** A cgroup v2 `cpu.stat`: `usage_usec`, `user_usec`, `system_usec`, … as numbers. */
export function parseCgroupCpuStat(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(\w+)\s+(\d+)\s*$/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  if (out.usage_usec === undefined) throw new Error('cpu.stat: no usage_usec line (is this a cgroup v2 directory?)');
  return out;
}

/** A cgroup v2 `memory.current`: bytes. */
export function parseMemoryCurrent(text: string): number {
  const t = text.trim();
  if (!/^\d+$/.test(t)) throw new Error(`memory.current: expected a byte count, got "${t.slice(0, 40)}"`);
  return Number(t);
}

let clockTicks: number | undefined;
/**
 * Clock ticks per second (USER_HZ), the unit of /proc's utime and stime: `getconf CLK_TCK`, read
 * once per process. It is 100 on every mainstream Linux; used as the fallback if getconf is missing.
 */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5000 }).trim());
      clockTicks = Number.isInteger(n) && n > 0 ? n : 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface ProcessUsage {
  /** utime + stime, in seconds (all threads). */
  cpuSeconds: number;
  rssBytes: number | null;
}

/** Reads a process's CPU time and RSS. Throws (ENOENT) when the process is gone. */
export async function readProcessUsage(pid: number | 'self'): Promise<ProcessUsage> {
  const dir = `/proc/${pid}`;
  const [stat, status] = await Promise.all([readFile(`${dir}/stat`, 'utf8'), readFile(`${dir}/status`, 'utf8')]);
  const { utimeTicks, stimeTicks } = parseProcStat(stat);
  return { cpuSeconds: (utimeTicks + stimeTicks) / clockTicksPerSecond(), rssBytes: parseProcStatusRss(status) };
}

export interface CgroupUsage {
  /** usage_usec, in seconds: every process of the cgroup, children included. */
  cpuSeconds: number;
  /** memory.current; null where the memory controller is not enabled for the cgroup (a hybrid hierarchy keeps it on v1). */
  memoryBytes: number | null;
}

/** Reads a cgroup v2 directory (e.g. /sys/fs/cgroup/system.slice/search.service). */
export async function readCgroupUsage(dir: string): Promise<CgroupUsage> {
  // cpu.stat's usage_usec is there in every cgroup v2 directory; memory.current only with the memory
  // controller: without it the CPU is still read, and the missing memory is the step's named gap.
  const [cpu, mem] = await Promise.all([readFile(join(dir, 'cpu.stat'), 'utf8'), readFile(join(dir, 'memory.current'), 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : Promise.reject(err)))]);
  return { cpuSeconds: parseCgroupCpuStat(cpu).usage_usec! / 1e6, memoryBytes: mem === null ? null : parseMemoryCurrent(mem) };
}

/** A process read as a Scrape (or the failure as one), for measureWindow with the default selectors. */
export async function scrapeProcess(pid: number | 'self', now: () => number = Date.now): Promise<Scrape> {
  try {
    const u = await readProcessUsage(pid);
    const samples: Sample[] = [{ name: PROCESS_CPU_METRIC, labels: {}, value: u.cpuSeconds }];
    if (u.rssBytes !== null) samples.push({ name: PROCESS_RSS_METRIC, labels: {}, value: u.rssBytes });
    return { atMs: now(), samples };
  } catch (err) {
    return { atMs: now(), error: `pid ${pid}: ${(err as Error).message}` };
  }
}

/** A cgroup read as a Scrape, for measureWindow with CGROUP_SELECTOR_TEXTS. */
export async function scrapeCgroup(dir: string, now: () => number = Date.now): Promise<Scrape> {
  try {
    const u = await readCgroupUsage(dir);
    return {
      atMs: now(),
      samples: [{ name: CGROUP_CPU_METRIC, labels: {}, value: u.cpuSeconds }, ...(u.memoryBytes === null ? [] : [{ name: CGROUP_MEMORY_METRIC, labels: {}, value: u.memoryBytes }])],
    };
  } catch (err) {
    return { atMs: now(), error: `cgroup ${dir}: ${(err as Error).message}` };
  }
}
