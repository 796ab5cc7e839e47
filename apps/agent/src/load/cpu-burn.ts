import { performance } from 'node:perf_hooks';

/** Keeps the main thread busy for `ms`: the deliberate way to starve the agent in tests (hidden --cpu-burn-ms). */
export function burnCpu(ms: number): void {
  if (ms <= 0) return;
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}
