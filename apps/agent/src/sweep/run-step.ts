import { performance } from 'node:perf_hooks';
import type { Recorder, ServerTimingParser } from '@kneeboard/agent-sdk';
import type { AgentMonitor } from '../load/agent-monitor.ts';
import { judgeStep } from '../load/health.ts';
import { LevelStats, type LevelSummary } from '../load/level-stats.ts';
import type { TargetRequest } from '../load/target-client.ts';
import type { NativeRequest } from '../native/native-request.ts';
import { startNativeStep } from '../native/native-step.ts';
import { startNodeStep } from './node-step.ts';
import type { SweepReporter } from './reporter.ts';
import type { StepDriver, StepEvent, StepPlan } from './step-driver.ts';

/** Which engine sends the requests: this process (undici), or the native binary it spawns per step. */
export type StepEngine = { kind: 'node' } | { kind: 'native'; binary: string; request: NativeRequest; threads: number | undefined };

export interface StepContext {
  engine: StepEngine;
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
  const plan: StepPlan = { loadModel: ctx.loadModel, load, warmupMs, durationMs };
  const step = recorder.step(level);
  let started_at = 0;
  let measure_from = 0;
  let ends_at = 0;
  let stats!: LevelStats;
  let okSinceTick = 0;
  const onEvent = (e: StepEvent) => {
    const tsMs = micros(e.tsMs);
    recorder.record({ level, latencyMs: micros(e.latencyMs), computeMs: e.computeMs, queueMs: e.queueMs, status: e.status, tsMs });
    stats.add(tsMs, e.latencyMs, e);
    if (e.errorKind === null) okSinceTick += 1;
  };
  // Called by the engine when it fixes the first send time; events only come after it.
  const begin = (startedAt: number) => {
    started_at = startedAt;
    measure_from = started_at + warmupMs;
    ends_at = measure_from + durationMs;
    stats = new LevelStats(level, measure_from, ends_at);
    step.start({ startedAt: started_at, measureFrom: measure_from });
    reporter.stepStarted?.({ level, load, index, count: ctx.levelCount, started_at, measure_from, ends_at });
    return onEvent;
  };
  const common = {
    plan,
    arrivals: ctx.arrivals,
    thinkTimeMs: ctx.thinkTimeMs,
    maxConnections: ctx.maxConnections,
    cpuBurnMs: ctx.cpuBurnMs,
    lateToleranceMs: LATE_TOLERANCE_MS,
    monitor: ctx.monitor,
    stopGraceMs: STOP_GRACE_MS,
  };
  const engine = ctx.engine;
  const driver: StepDriver =
    engine.kind === 'native'
      ? await startNativeStep({ ...common, binary: engine.binary, request: engine.request, threads: engine.threads }, begin)
      : startNodeStep({ ...common, origin: ctx.origin, request: ctx.request, parseTiming: ctx.parseTiming }, begin);

  let stoppedAt: number | undefined;
  const onStop = () => {
    stoppedAt = nowEpochMs();
    stats.closeAt(stoppedAt);
    driver.stop();
  };
  if (ctx.signal.aborted) onStop();
  else ctx.signal.addEventListener('abort', onStop, { once: true });

  let lastTick = nowEpochMs();
  const progress = reporter.progress;
  const ticker = progress
    ? setInterval(() => {
        const now = nowEpochMs();
        const totalMs = warmupMs + durationMs;
        const elapsedMs = Math.max(0, Math.min(now - started_at, totalMs));
        progress({ level, phase: elapsedMs < warmupMs ? 'warm-up' : 'measuring', elapsedMs, totalMs, qps: (okSinceTick * 1000) / (now - lastTick), inFlight: driver.inFlight() });
        okSinceTick = 0;
        lastTick = now;
      }, PROGRESS_EVERY_MS)
    : undefined;

  let result;
  try {
    result = await driver.done;
  } finally {
    clearInterval(ticker);
    ctx.signal.removeEventListener('abort', onStop);
  }

  const aborted = stoppedAt !== undefined && stoppedAt < ends_at;
  const ended_at = aborted ? Math.max(measure_from, stoppedAt!) : ends_at;
  // Stopped during warm-up: an empty window, still closed so the run shows no step left open.
  const window_from = Math.min(measure_from, ended_at);
  const numbers = stats.summarize(window_from, ended_at, aborted);
  const windowMs = ended_at - window_from;
  const open = result.open;
  const health = judgeStep(
    {
      loadModel: ctx.loadModel,
      target: load,
      windowMs,
      inFlightMean: result.inFlightMean,
      littlesInFlight: numbers.in_flight,
      meanLatencyMs: stats.meanLatencyMs(),
      thinkTimeMs: ctx.thinkTimeMs,
      maxConnections: ctx.maxConnections,
      connections: result.connections,
      open,
      usage: result.usage,
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

const nowEpochMs = (): number => performance.timeOrigin + performance.now();
