import { performance } from 'node:perf_hooks';
import { isSuccessStatus } from '@kneeboard/contracts';
import type { Recorder, ServerTimingParser } from '@kneeboard/agent-sdk';
import type { AgentMonitor } from '../load/agent-monitor.ts';
import { judgeStep } from '../load/health.ts';
import { LevelStats, type LevelSummary } from '../load/level-stats.ts';
import type { TargetRequest } from '../load/target-client.ts';
import type { NativeRequest } from '../native/native-request.ts';
import { startNativeStep } from '../native/native-step.ts';
import { startNodeStep } from './node-step.ts';
import type { SweepReporter } from './reporter.ts';
import type { StepColumns, StepDriver, StepEvent, StepPlan, StepSink } from './step-driver.ts';

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
  // A block from the native engine: one pass over its columns, which go to the recorder as they
  // are (no object per request) when it takes blocks.
  const onColumns = (c: StepColumns) => {
    const n = c.length;
    const { ended, intended, compute, queue, status, kind, kinds, unparseable } = c;
    const ts = new Float64Array(n);
    const latency = new Float64Array(n);
    let m = 0;
    const keep = recorder.recordColumns === undefined ? null : new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const k = kind[i]!;
      if (k === c.cancelled) continue;
      const s = status[i]!;
      const tsMs = micros(started_at + ended[i]!);
      const latencyMs = ended[i]! - intended[i]!;
      const errorKind = k > 0 ? (kinds[k - 1] ?? 'socket error') : isSuccessStatus(s) ? null : `HTTP ${s}`;
      stats.addValues(tsMs, latencyMs, errorKind, compute[i]!, queue[i]!, unparseable[i]!);
      if (errorKind === null) okSinceTick += 1;
      if (keep === null) {
        const cm = compute[i]!;
        const qm = queue[i]!;
        recorder.record({ level, latencyMs: micros(latencyMs), computeMs: cm === cm ? cm : null, queueMs: qm === qm ? qm : null, status: s, tsMs });
        continue;
      }
      keep[i] = 1;
      ts[m] = tsMs;
      latency[m] = micros(latencyMs);
      m++;
    }
    if (keep === null || m === 0) return;
    // Cancelled requests are not events: when the block has any, its columns are compacted.
    const pick = <T extends Float64Array | Uint16Array>(col: T): T => (m === n ? col : (col.filter((_, i) => keep[i] === 1) as T));
    recorder.recordColumns!({
      length: m,
      level: new Float64Array(m).fill(level),
      ts_ms: ts.subarray(0, m),
      latency_ms: latency.subarray(0, m),
      compute_ms: pick(compute),
      queue_ms: pick(queue),
      status: pick(status),
    });
  };
  // Called by the engine when it fixes the first send time; events only come after it.
  const begin = (startedAt: number): StepSink => {
    started_at = startedAt;
    measure_from = started_at + warmupMs;
    ends_at = measure_from + durationMs;
    stats = new LevelStats(level, measure_from, ends_at);
    step.start({ startedAt: started_at, measureFrom: measure_from });
    reporter.stepStarted?.({ level, load, index, count: ctx.levelCount, started_at, measure_from, ends_at });
    return Object.assign(onEvent, { columns: onColumns });
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
