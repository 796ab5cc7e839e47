import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process and its threads have used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The 1-minute load average, as `uptime` prints it. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/** The process whose command line contains `needle` (e.g. a server's data directory), or undefined. */
export function pidByCommandLine(needle: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) return Number(entry);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
  return undefined;
}
