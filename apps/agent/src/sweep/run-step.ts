import { performance } from 'node:perf_hooks';
import type { Recorder, ServerTimingParser } from '@kneeboard/agent-sdk';
import { AgentMonitor, type AgentUsage } from '../load/agent-monitor.ts';
import { startClosedLoop } from '../load/closed-loop.ts';
import { judgeStep } from '../load/health.ts';
import { InFlightGauge, type GaugeMark } from '../load/in-flight-gauge.ts';
import { LevelStats, type LevelSummary } from '../load/level-stats.ts';
import type { LoopHandle } from '../load/loop.ts';
import { startOpenLoop, type OpenLoopCounts } from '../load/open-loop.ts';
import { createTargetPool, type Completion, type TargetRequest } from '../load/target-client.ts';
import type { SweepReporter } from './reporter.ts';

export interface StepContext {
  recorder: Recorder;
  reporter: SweepReporter;
  monitor: AgentMonitor;
  origin: string;
  request: TargetRequest;
  parseTiming: ServerTimingParser;
  loadModel: 'closed' | 'open';
  arrivals: 'uniform' | 'poisson';
  thinkTimeMs: number;
  maxConnections: number;
  cpuBurnMs: number;
  warmupMs: number;
  durationMs: number;
  levelCount: number;
  /** Stops the sweep: Ctrl-C, or events that can no longer be stored. */
  signal: AbortSignal;
}

const PROGRESS_EVERY_MS = 250;
/** After Ctrl-C, requests in flight get this long to finish before they are cut off. */
const STOP_GRACE_MS = 1_000;
/** A send later than this after its intended time is late: a few timer ticks, more than a busy machine's jitter. */
export const LATE_TOLERANCE_MS = 5;
const micros = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * One level: post the open window, run the loop for warm-up + duration, let requests in flight
 * finish, post the final window with the agent's health. Every response is recorded for upload and
 * counted locally for the table.
 */
export async function runStep(ctx: StepContext, level: number, load: number, index: number): Promise<LevelSummary> {
  const { recorder, reporter, warmupMs, durationMs } = ctx;
  const closed = ctx.loadModel === 'closed';
  // Closed: exactly the connections the concurrency needs; open: as many as the rate turns out to need.
  const pool = createTargetPool(ctx.origin, closed ? Math.min(load, ctx.maxConnections) : ctx.maxConnections, ctx.request.timeoutMs);
  const gauge = new InFlightGauge();

  const t0 = performance.now() + 1; // the first send, a moment after the timers below are armed
  const measureFromPerf = t0 + warmupMs;
  const endPerf = measureFromPerf + durationMs;
  const started_at = performance.timeOrigin + t0;
  const measure_from = started_at + warmupMs;
  const ends_at = measure_from + durationMs;
  const stats = new LevelStats(level, measure_from, ends_at);
  const step = recorder.step(level);
  step.start({ startedAt: started_at, measureFrom: measure_from });
  reporter.stepStarted?.({ level, load, index, count: ctx.levelCount, started_at, measure_from, ends_at });

  let okSinceTick = 0;
  const onResult = (intendedAt: number, c: Completion) => {
    const latencyMs = c.endedAt - intendedAt;
    const tsMs = micros(performance.timeOrigin + c.endedAt);
    recorder.record({ level, latencyMs: micros(latencyMs), computeMs: c.computeMs, queueMs: c.queueMs, status: c.status, tsMs });
    stats.add(tsMs, latencyMs, c);
    if (c.errorKind === null) okSinceTick += 1;
  };
  const base = { dispatcher: pool, request: ctx.request, parseTiming: ctx.parseTiming, gauge, startAt: t0, stopSendingAt: endPerf, cpuBurnMs: ctx.cpuBurnMs, onResult };
  const loop: LoopHandle<void | OpenLoopCounts> = closed
    ? startClosedLoop({ ...base, concurrency: load, thinkTimeMs: ctx.thinkTimeMs })
    : startOpenLoop({
        ...base,
        rate: load,
        arrivals: ctx.arrivals,
        maxConnections: ctx.maxConnections,
        windowFrom: measureFromPerf,
        windowTo: endPerf,
        lateToleranceMs: LATE_TOLERANCE_MS,
      });

  // The window's marks: agent usage and the in-flight integral from measure_from to the end (or Ctrl-C).
  let markFrom: GaugeMark | undefined;
  let markTo: GaugeMark | undefined;
  let usage: AgentUsage | null = null;
  let connections: number | null = null;
  const openWindow = () => {
    markFrom = gauge.mark();
    ctx.monitor.start();
  };
  const closeWindow = () => {
    if (markTo !== undefined) return;
    clearTimeout(openTimer);
    markTo = gauge.mark();
    usage = ctx.monitor.stop();
    connections = pool.stats.connected;
  };
  const openTimer = setTimeout(openWindow, Math.max(0, measureFromPerf - performance.now()));
  const closeTimer = setTimeout(closeWindow, Math.max(0, endPerf - performance.now()));
  // Requests still out long after the end have had the request timeout; stop waiting for the backlog then.
  const drainTimer = setTimeout(() => loop.stopSending(), endPerf + ctx.request.timeoutMs + STOP_GRACE_MS - performance.now());

  let stoppedAt: number | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const onStop = () => {
    stoppedAt = performance.now();
    stats.closeAt(performance.timeOrigin + stoppedAt);
    closeWindow();
    loop.stopSending();
    graceTimer = setTimeout(() => {
      loop.cancel();
      void pool.destroy();
    }, STOP_GRACE_MS);
  };
  if (ctx.signal.aborted) onStop();
  else ctx.signal.addEventListener('abort', onStop, { once: true });

  let lastTick = t0;
  const progress = reporter.progress;
  const ticker = progress
    ? setInterval(() => {
        const now = performance.now();
        const totalMs = warmupMs + durationMs;
        const elapsedMs = Math.max(0, Math.min(now - t0, totalMs));
        progress({ level, phase: elapsedMs < warmupMs ? 'warm-up' : 'measuring', elapsedMs, totalMs, qps: (okSinceTick * 1000) / (now - lastTick), inFlight: gauge.current });
        okSinceTick = 0;
        lastTick = now;
      }, PROGRESS_EVERY_MS)
    : undefined;

  let counts: void | OpenLoopCounts;
  try {
    counts = await loop.done;
  } finally {
    for (const t of [openTimer, closeTimer, drainTimer, graceTimer, ticker]) clearTimeout(t);
    ctx.signal.removeEventListener('abort', onStop);
    await pool.close().catch(() => pool.destroy());
  }
  closeWindow();

  const aborted = stoppedAt !== undefined && stoppedAt < endPerf;
  const ended_at = aborted ? Math.max(measure_from, performance.timeOrigin + stoppedAt!) : ends_at;
  // Stopped during warm-up: an empty window, still closed so the run shows no step left open.
  const window_from = Math.min(measure_from, ended_at);
  const numbers = stats.summarize(window_from, ended_at, aborted);
  const windowMs = ended_at - window_from;
  const open = counts ?? null;
  const health = judgeStep(
    {
      loadModel: ctx.loadModel,
      target: load,
      windowMs,
      inFlightMean: markFrom && markTo ? InFlightGauge.mean(markFrom, markTo) : null,
      littlesInFlight: numbers.in_flight,
      meanLatencyMs: stats.meanLatencyMs(),
      thinkTimeMs: ctx.thinkTimeMs,
      maxConnections: ctx.maxConnections,
      connections,
      open,
      usage,
      p50Ms: numbers.p50_ms,
    },
    LATE_TOLERANCE_MS,
  );
  void step.end({ endedAt: ended_at, health });
  return {
    ...numbers,
    load_model: ctx.loadModel,
    load,
    sent_per_s: open && windowMs > 0 ? (open.sent * 1000) / windowMs : null,
    health,
  };
}
