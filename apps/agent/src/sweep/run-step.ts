import { wallClockMs, type Recorder, type ServerTimingParser } from '@kneeboard/agent-sdk';
import type { AgentMonitor } from '../load/agent-monitor.ts';
import { judgeStep } from '../load/health.ts';
import type { LevelSummary } from '../load/level-stats.ts';
import type { TargetRequest } from '../load/target-client.ts';
import type { NativeRequest } from '../native/native-request.ts';
import { startNativeStep } from '../native/native-step.ts';
import type { SweepConfig } from './config.ts';
import { MeasurementWindow } from './measurement-window.ts';
import { startNodeStep } from './node-step.ts';
import type { SweepReporter } from './reporter.ts';
import { stepConnections } from './step-connections.ts';
import type { BeginStep, DriverResult, StepDriver, StepSink } from './step-driver.ts';
import { StepRecording } from './step-recording.ts';

/** A request mix as a step takes it: requests and weights by index, and the name of each index. */
export interface StepMix {
  requests: TargetRequest[];
  weights: number[];
  names: readonly string[];
  nameOf: Uint16Array;
}

/** Which engine sends the requests: this process (undici), or the native binary it spawns per step. */
export type StepEngine = { kind: 'node' } | { kind: 'native'; binary: string; request: NativeRequest; threads: number | undefined };

/**
 * What one step needs: the sweep's settings it reads, picked from SweepConfig (not re-declared),
 * plus the handles the sweep opens for it.
 */
export type StepContext = Pick<SweepConfig, 'loadModel' | 'arrivals' | 'thinkTimeMs' | 'maxConnections' | 'warmupMs' | 'durationMs'> & {
  engine: StepEngine;
  recorder: Recorder;
  reporter: SweepReporter;
  monitor: AgentMonitor;
  origin: string;
  request: TargetRequest;
  /** `--requests`: the mix (its requests for the Node engine; the native one has them in its flags). */
  mix?: StepMix;
  parseTiming: ServerTimingParser;
  levelCount: number;
  /** Stops the sweep: Ctrl-C, or events that can no longer be stored. */
  signal: AbortSignal;
};

const PROGRESS_EVERY_MS = 250;
/** After Ctrl-C, requests in flight get this long to finish before they are cut off. */
const STOP_GRACE_MS = 1_000;
/** A send later than this after its intended time is late: a few timer ticks, more than a busy machine's jitter. */
export const LATE_TOLERANCE_MS = 5;

/**
 * One level: post the open window, run the loop for warm-up + duration, let requests in flight
 * finish, post the final window with the agent's health. Every response is recorded for upload and
 * counted locally for the table.
 */
export async function runStep(ctx: StepContext, level: number, load: number, index: number): Promise<LevelSummary> {
  const { reporter } = ctx;
  const step = ctx.recorder.step(level);
  const recording = new StepRecording(ctx.recorder, level, ctx.warmupMs, ctx.durationMs, ctx.mix);
  // Called by the engine when it fixes the first send time; events only come after it.
  const begin = (startedAt: number): StepSink => {
    const sink = recording.begin(startedAt);
    const { measureFrom, endsAt } = recording;
    step.start({ startedAt, measureFrom });
    reporter.stepStarted?.({ level, load, index, count: ctx.levelCount, started_at: startedAt, measure_from: measureFrom, ends_at: endsAt });
    return sink;
  };
  const driver = await startEngine(ctx, load, begin);

  // Ctrl-C closes the window now and stops the engine; the progress line ticks until the step ends.
  const measurement = new MeasurementWindow(recording, {
    signal: ctx.signal,
    onStop: (stoppedAt) => {
      recording.stats.closeAt(stoppedAt);
      recording.byName?.closeAt(stoppedAt);
      driver.stop();
    },
    tick: reporter.progress && { everyMs: PROGRESS_EVERY_MS, onTick: progressLine(ctx, level, recording, driver, reporter.progress) },
  });
  let result: DriverResult;
  try {
    result = await driver.done;
  } finally {
    measurement.dispose();
  }

  const { summary, endedAt } = summarizeStep(ctx, load, recording, measurement.stoppedAt, result);
  void step.end({ endedAt, health: summary.health, connections: stepConnections(result) });
  return summary;
}

/** Starts the step on the engine the sweep chose; `begin` is called once it fixes the first send time. */
async function startEngine(ctx: StepContext, load: number, begin: BeginStep): Promise<StepDriver> {
  const common = {
    plan: { loadModel: ctx.loadModel, load, warmupMs: ctx.warmupMs, durationMs: ctx.durationMs },
    arrivals: ctx.arrivals,
    thinkTimeMs: ctx.thinkTimeMs,
    maxConnections: ctx.maxConnections,
    lateToleranceMs: LATE_TOLERANCE_MS,
    monitor: ctx.monitor,
    stopGraceMs: STOP_GRACE_MS,
  };
  const engine = ctx.engine;
  return engine.kind === 'native'
    ? await startNativeStep({ ...common, binary: engine.binary, request: engine.request, threads: engine.threads }, begin)
    : startNodeStep({ ...common, origin: ctx.origin, request: ctx.request, mix: ctx.mix, parseTiming: ctx.parseTiming }, begin);
}

/** The progress line's tick: phase, elapsed time, QPS since the last tick, requests on the wire. */
function progressLine(ctx: StepContext, level: number, recording: StepRecording, driver: StepDriver, progress: NonNullable<SweepReporter['progress']>): () => void {
  const { warmupMs, durationMs } = ctx;
  let lastTick = wallClockMs();
  return () => {
    const now = wallClockMs();
    const totalMs = warmupMs + durationMs;
    const elapsedMs = Math.max(0, Math.min(now - recording.startedAt, totalMs));
    progress({ level, phase: elapsedMs < warmupMs ? 'warm-up' : 'measuring', elapsedMs, totalMs, qps: (recording.takeOk() * 1000) / (now - lastTick), inFlight: driver.inFlight() });
    lastTick = now;
  };
}

/** The level's numbers over its window — cut short when stopped before its end — and the agent's verdict on itself. */
function summarizeStep(ctx: StepContext, load: number, recording: StepRecording, stoppedAt: number | undefined, result: DriverResult): { summary: LevelSummary; endedAt: number } {
  const { stats, measureFrom, endsAt } = recording;
  const aborted = stoppedAt !== undefined && stoppedAt < endsAt;
  const endedAt = aborted ? Math.max(measureFrom, stoppedAt) : endsAt;
  // Stopped during warm-up: an empty window, still closed so the run shows no step left open.
  const windowFrom = Math.min(measureFrom, endedAt);
  const numbers = stats.summarize(windowFrom, endedAt, aborted);
  const windowMs = endedAt - windowFrom;
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
  return {
    summary: {
      ...numbers,
      load_model: ctx.loadModel,
      load,
      sent_per_s: open && windowMs > 0 ? (open.sent * 1000) / windowMs : null,
      health,
      ...(result.tls ? { tls_handshakes: result.tls } : {}),
      ...(recording.byName ? { by_name: recording.byName.summarize(numbers.window_s) } : {}),
    },
    endedAt,
  };
}
