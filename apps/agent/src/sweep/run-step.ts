import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { KneeboardApi } from '../recorder/api-client.ts';
import type { EventRecorder } from '../recorder/event-recorder.ts';
import { runClosedLoop } from './closed-loop.ts';
import { LevelStats, type LevelSummary } from './level-stats.ts';
import type { SweepReporter } from './reporter.ts';
import type { TargetRequest } from './send-request.ts';

export interface StepContext {
  api: KneeboardApi;
  runId: string;
  recorder: EventRecorder;
  reporter: SweepReporter;
  origin: string;
  request: TargetRequest;
  warmupMs: number;
  durationMs: number;
  levelCount: number;
  /** Stops the sweep: Ctrl-C, or events that can no longer be stored. */
  signal: AbortSignal;
}

const PROGRESS_EVERY_MS = 250;
const micros = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * One level: post the open window, run the closed loop for warm-up + duration on a pool of exactly
 * `level` keep-alive connections, post the final window. Every response is recorded for upload and
 * counted locally for the table.
 */
export async function runStep(ctx: StepContext, level: number, index: number): Promise<LevelSummary> {
  const { api, runId, recorder, reporter, warmupMs, durationMs } = ctx;
  const stop = new AbortController();
  const onSweepStop = () => stop.abort();
  ctx.signal.addEventListener('abort', onSweepStop, { once: true });
  // Sized to the level: a smaller pool would queue requests inside the agent and cap the load.
  const pool = new Pool(ctx.origin, { connections: level, pipelining: 1, connect: { timeout: ctx.request.timeoutMs } });

  const t0 = performance.now();
  const started_at = performance.timeOrigin + t0;
  const measure_from = started_at + warmupMs;
  const ends_at = measure_from + durationMs;
  const stats = new LevelStats(level, measure_from, ends_at);

  // The open window goes up while the load starts; if it cannot be stored, the step stops.
  let postError: unknown;
  const opened = api.postStep(runId, { level, started_at, measure_from, ended_at: null }).catch((err: unknown) => {
    postError = err;
    stop.abort();
  });
  reporter.stepStarted?.({ level, index, count: ctx.levelCount, started_at, measure_from, ends_at });

  let okSinceTick = 0;
  let lastTick = t0;
  const progress = reporter.progress;
  const ticker = progress
    ? setInterval(() => {
        const now = performance.now();
        const totalMs = warmupMs + durationMs;
        const elapsedMs = Math.min(now - t0, totalMs);
        progress({ level, phase: elapsedMs < warmupMs ? 'warm-up' : 'measuring', elapsedMs, totalMs, qps: (okSinceTick * 1000) / (now - lastTick) });
        okSinceTick = 0;
        lastTick = now;
      }, PROGRESS_EVERY_MS)
    : undefined;

  try {
    await runClosedLoop({
      level,
      dispatcher: pool,
      request: ctx.request,
      stopSendingAt: t0 + warmupMs + durationMs,
      signal: stop.signal,
      onOutcome: (o) => {
        recorder.record(level, micros(o.completedAtMs), micros(o.latencyMs), o.computeMs, o.queueMs, o.status);
        stats.add(o);
        if (o.errorKind === null) okSinceTick += 1;
      },
    });
    await opened;
  } finally {
    clearInterval(ticker);
    ctx.signal.removeEventListener('abort', onSweepStop);
    await pool.close();
  }
  if (postError !== undefined) throw postError;

  const aborted = ctx.signal.aborted;
  const ended_at = aborted ? Math.min(performance.timeOrigin + performance.now(), ends_at) : ends_at;
  // Stopped during warm-up: an empty window, still closed so the run shows no step left open.
  const window_from = Math.min(measure_from, ended_at);
  await api.postStep(runId, { level, started_at, measure_from: window_from, ended_at });
  return stats.summarize(window_from, ended_at, aborted);
}
