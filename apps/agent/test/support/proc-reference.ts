import { readProcessUsage } from '@kneeboard/server-metrics';

/**
 * The reference the cost figures are checked against (issue 28's accuracy target): a process's CPU
 * time from /proc/PID/stat, read ten times a second by the test itself, so the CPU spent between
 * any two instants is known to a tick (10 ms) and a read's spacing (interpolated between reads).
 */
export class ProcReference {
  readonly #reads: Array<{ atMs: number; cpuSeconds: number }> = [];
  readonly #timer: NodeJS.Timeout;

  constructor(readonly pid: number) {
    this.#timer = setInterval(() => {
      const atMs = Date.now();
      void readProcessUsage(pid)
        .then((u) => this.#reads.push({ atMs, cpuSeconds: u.cpuSeconds }))
        .catch(() => {});
    }, 100);
  }

  /** The process's CPU seconds at `ms`, interpolated between the reads either side; throws outside them. */
  cpuAt(ms: number): number {
    const reads = [...this.#reads].sort((a, b) => a.atMs - b.atMs);
    const after = reads.findIndex((r) => r.atMs >= ms);
    if (after <= 0) throw new Error(`no /proc reads around ${new Date(ms).toISOString()}`);
    const a = reads[after - 1]!;
    const b = reads[after]!;
    return a.cpuSeconds + ((b.cpuSeconds - a.cpuSeconds) * (ms - a.atMs)) / (b.atMs - a.atMs);
  }

  /** Cores used between two instants: CPU seconds spent ÷ seconds elapsed. */
  coresBetween(fromMs: number, toMs: number): number {
    return (this.cpuAt(toMs) - this.cpuAt(fromMs)) / ((toMs - fromMs) / 1000);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
