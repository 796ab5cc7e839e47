import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';

export interface AgentUsage {
  /** Process CPU (user + system, all threads) ÷ wall time: 1.0 is one core busy. */
  cpuCores: number;
  /** Share of the window the main thread was busy (not waiting for I/O), 0–1. */
  eventLoopUtilization: number;
  /** p99 of how late a 10 ms timer fired: the lag added to every send and receive time. */
  loopDelayP99Ms: number;
  /** What the utilisation and lag are of, in the verdict's words; default the agent's event loop. */
  loopName?: string;
}

const RESOLUTION_MS = 10;

/**
 * The agent's own load during a step: the agent is a single-threaded Node process, so a busy main
 * thread or a lagging event loop means requests leave late and responses are timed late.
 */
export class AgentMonitor {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private cpu0: NodeJS.CpuUsage | undefined;
  private wall0 = 0;
  private elu0: EventLoopUtilization | undefined;

  start(): void {
    this.delay.reset();
    this.delay.enable();
    this.cpu0 = process.cpuUsage();
    this.wall0 = performance.now();
    this.elu0 = performance.eventLoopUtilization();
  }

  /** Usage since start(); null if start() never ran (a step stopped during warm-up). */
  stop(): AgentUsage | null {
    if (this.cpu0 === undefined || this.elu0 === undefined) return null;
    this.delay.disable();
    const cpu = process.cpuUsage(this.cpu0);
    const wallMs = performance.now() - this.wall0;
    const elu = performance.eventLoopUtilization(this.elu0);
    // The histogram holds whole timer intervals (≥ the resolution); the lag is what exceeds it.
    const p99 = this.delay.count > 0 ? Math.max(0, this.delay.percentile(99) / 1e6 - RESOLUTION_MS) : 0;
    this.cpu0 = undefined;
    this.elu0 = undefined;
    return {
      cpuCores: wallMs > 0 ? (cpu.user + cpu.system) / 1000 / wallMs : 0,
      eventLoopUtilization: elu.utilization,
      loopDelayP99Ms: p99,
    };
  }
}
