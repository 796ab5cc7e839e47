/** This process's CPU time (user + system, every thread) in ms: the counter `/metrics` reports. */
export function processCpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/**
 * Burns `ms` of real CPU with a busy loop, measured in CPU time (not wall time), so a request costs
 * the same CPU however busy the machine is: on a starved box the loop just takes longer. It blocks
 * the event loop, which is the point — a CPU-bound handler. Bounded by `maxWallMs` of wall time so a
 * box starved of CPU cannot hang the server.
 */
export function burnCpu(ms: number, maxWallMs = Math.max(1000, 20 * ms)): void {
  if (ms <= 0) return;
  const until = processCpuMs() + ms;
  const wallEnd = Date.now() + maxWallMs;
  while (processCpuMs() < until && Date.now() < wallEnd) {
    // spin: process.cpuUsage() is a getrusage(2) call, cheap next to the millisecond being burnt
  }
}
