import { readFileSync } from 'node:fs';

/** File descriptors the agent keeps besides target connections: stdio, the API's connections, the spool, timers. */
export const FD_RESERVE = 64;

/** The soft limit on open files (`ulimit -n`), from /proc on Linux; null where it cannot be read. */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(read());
    if (!m) return null;
    return m[1] === 'unlimited' ? Infinity : Number(m[1]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // not Linux
    throw err;
  }
}
