import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A real cgroup v2 directory for a test: made under the cgroup2 mount (/sys/fs/cgroup on a pure
 * v2 host, /sys/fs/cgroup/unified on a hybrid one), a process moved into it, and the process
 * moved back and the directory removed by `remove`. Throws, saying why, where the host does not
 * allow it (no cgroup2 mount, not root, a read-only /sys) — the test fails rather than skips.
 */
export function cgroup2Root(): string {
  const mount = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .find((f) => f[2] === 'cgroup2');
  if (!mount) throw new Error('no cgroup2 file system is mounted here (see /proc/self/mounts): the cgroup v2 test needs one, writable by this user');
  return mount[1]!;
}

export function makeCgroup(name: string, pid: number): { dir: string; remove(): void } {
  const root = cgroup2Root();
  const dir = join(root, name);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  } catch (err) {
    throw new Error(`cannot make a cgroup v2 directory under ${root} and move pid ${pid} into it (${(err as Error).message}): the test needs root and a writable cgroup2 mount`);
  }
  return {
    dir,
    remove() {
      try {
        writeFileSync(join(root, 'cgroup.procs'), String(pid));
      } catch {
        // the process has exited: the directory is empty already
      }
      rmdirSync(dir);
    },
  };
}
