import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import {
  ApiHttpError,
  createRecorder,
  createServerTimingParser,
  describeCause,
  describeStatus,
  isNetworkError,
  KneeboardApi,
  replaySpool,
  type Recorder,
} from '@kneeboard/agent-sdk';
import { AgentMonitor } from '../load/agent-monitor.ts';
import { DEFAULT_ENGINE_BINARY, resolveEngine } from '../native/engine-binary.ts';
import { prepareNativeRequest } from '../native/native-request.ts';
import type { LevelSummary } from '../load/level-stats.ts';
import { runBeforeLevel } from './before-level.ts';
import { loadAt, SweepConfig, type SweepInput } from './config.ts';
import { checkApi, checkOpenFiles, probeTarget } from './preflight.ts';
import { sendOnceH2 } from '../load/h2-probe.ts';
import type { SweepReporter } from './reporter.ts';
import { runStep, type StepContext, type StepEngine, type StepMix } from './run-step.ts';
import { openServerCost, type SweepServerCost } from './server-cost.ts';
import { refineLevels } from './refine-levels.ts';
import { apiJudge, searchLevels, type SearchResult } from './search-levels.ts';
import { SweepError } from './sweep-error.ts';
import { mixRequestsOf, targetRequestOf } from './target-request.ts';
import { withMixTags } from '../mix/request-mix.ts';
import { repeatRun } from './repeat-run.ts';

export interface UploadSummary {
  recorded: number;
  uploaded: number;
  batches: number;
  duplicateBatches: number;
  lostEvents: number;
  /** Events (and API calls) still in the spool because the API could not take them in time. */
  spooledEvents: number;
  spooledEntries: number;
  /** Where they wait; `kneeboard flush --spool-dir <this>` sends them. */
  spoolDir: string | null;
}

export interface SweepResult {
  /** The run (the first one, with --repeat). */
  runId: string;
  /** Every run of the sweep: one, or one per --repeat, in order. */
  runIds: string[];
  /** Levels added inside the knee's bracket by --refine, if any. */
  refinedLevels: number[];
  /** `--search`: the capacity found under the SLOs and every level run to find it; null otherwise. */
  search: SearchResult | null;
  /** The engine that sent the requests. */
  engine: 'node' | 'native';
  runUrl: string;
  status: 'finished' | 'aborted';
  loadModel: 'closed' | 'open';
  parameter: string;
  levels: LevelSummary[];
  upload: UploadSummary;
}

export interface SweepContext {
  /** Aborting stops the sweep: the current step finishes early, events are flushed, the run finished as 'aborted'. */
  signal?: AbortSignal;
  reporter?: SweepReporter;
}

/** At most one retry warning this often: an API outage would otherwise print a line per attempt. */
const RETRY_WARNING_EVERY_MS = 5_000;

/**
 * A sweep: checks the API and the target, creates the run, runs each level in turn (after its
 * --before-level command), uploads every request through the SDK's spooled queue, finishes the run.
 * Throws a SweepError with a message for people when something is unreachable or refused.
 */
export async function runSweep(input: SweepInput, context: SweepContext = {}): Promise<SweepResult> {
  const parsed = SweepConfig.safeParse(input);
  if (!parsed.success) throw new SweepError('config', `invalid sweep options:\n${z.prettifyError(parsed.error)}`);
  // `--requests`: the run records the mix (names and shares) in its tags; the user's own tags win.
  const cfg = withMixTags(parsed.data);
  const signal = context.signal ?? new AbortController().signal;
  const reporter = context.reporter ?? {};
  const warn = (m: string) => reporter.warn?.(m);
  const target = new URL(cfg.target);
  const request = targetRequestOf(cfg);
  const parseTiming = createServerTimingParser(cfg.serverTiming);
  const mix: StepMix | undefined = cfg.requests && {
    requests: mixRequestsOf(cfg, request),
    weights: cfg.requests.requests.map((r) => r.weight),
    names: cfg.requests.names,
    nameOf: cfg.requests.nameOf,
  };
  if (cfg.requests && cfg.requests.skipped > 0) warn(`--requests: ${cfg.requests.skipped} requests of the HAR to other origins than its page's are left out`);
  const binary = cfg.engineBinary ?? DEFAULT_ENGINE_BINARY;
  const chosen = resolveEngine(cfg.engine, target, binary, cfg.http);
  if ('error' in chosen) throw new SweepError('config', chosen.error);
  if (chosen.note !== undefined) warn(chosen.note);
  if (chosen.engine === 'node' && cfg.threads !== undefined) warn(`--threads ${cfg.threads} is ignored: the Node engine is one thread`);
  let engine: StepEngine = { kind: 'node' };
  if (chosen.engine === 'native') {
    try {
      engine = { kind: 'native', binary, request: prepareNativeRequest(target.origin, request, cfg.serverTiming, { http: cfg.http, connections: cfg.connections }, mix), threads: cfg.threads };
    } catch (err) {
      throw new SweepError('config', (err as Error).message);
    }
  }
  let lastRetryWarning = 0;
  const onRetry = (n: { what: string; delayMs: number; error: unknown }) => {
    if (Date.now() - lastRetryWarning < RETRY_WARNING_EVERY_MS) return;
    lastRetryWarning = Date.now();
    warn(`could not ${n.what} (${failureText(n.error)}); retrying — nothing is lost meanwhile, it waits in the spool`);
  };
  const api = new KneeboardApi({ baseUrl: cfg.api, retry: cfg.retry, onRetry: (n) => onRetry(n), token: cfg.token });
  const spoolDir = cfg.spoolDir === null ? null : resolve(cfg.spoolDir);
  const readyUrl = new URL(cfg.readyUrl ?? cfg.target);
  const prepare = (level: number) => {
    if (cfg.beforeLevel === undefined) return Promise.resolve();
    reporter.levelPreparing?.({ level, command: cfg.beforeLevel });
    return runBeforeLevel({ command: cfg.beforeLevel, level, parameter: cfg.parameter, readyUrl, readyRequest: request, timeoutMs: cfg.readyTimeoutMs, parseTiming, signal });
  };

  let serverCost: SweepServerCost | undefined;
  try {
    await checkApi(api);
    const maxConnections = checkOpenFiles(cfg, warn);
    if (spoolDir !== null) await resendLeftovers(api, spoolDir, warn);
    // With a --before-level command the target may only exist once the first level's command ran.
    await prepare(cfg.levels[0]!);
    // --http2: the probe speaks HTTP/2 too (an h2-only target refuses HTTP/1.1).
    // With a mix, its first request stands for it (the target URL itself may not be one of them).
    const probe = await probeTarget(target, mix ? mix.requests[0]! : request, parseTiming, cfg.http === '2' ? sendOnceH2 : undefined);
    if (probe.computeMs === null && probe.queueMs === null) {
      warn(`the target sends no Server-Timing ${cfg.serverTiming.queue.join('/')} or ${cfg.serverTiming.compute.join('/')} duration: those columns will stay empty`);
    }
    // What the server spends (issue 28): its source must answer before any load is sent.
    const opened = await openServerCost(cfg, warn);
    if (opened && 'error' in opened) throw new SweepError('target-unreachable', opened.error);
    serverCost = opened?.cost;

    // Stops the steps on Ctrl-C, and also once events are being lost: load whose timings cannot be
    // stored is wasted on the target.
    const halt = new AbortController();
    if (signal.aborted) halt.abort();
    signal.addEventListener('abort', () => halt.abort(), { once: true });
    let lost: SweepError | undefined;
    const createOne = (repeat: number) =>
      createRecorder({
        api,
        run: repeatRun(cfg, repeat, repeatGroup),
        spoolDir,
        agentId: cfg.agentId,
        flushIntervalMs: cfg.flushIntervalMs,
        maxBatchEvents: cfg.maxBatchEvents,
        retry: cfg.retry,
        onRetry,
        onWarning: warn,
        onLost: (err, l) => {
          warn(`the API will never store ${l.events > 0 ? `a batch of ${l.events} events` : `a ${l.kind} call`}: ${failureText(err)}`);
          lost ??= new SweepError('api-failed', `events could not be stored (${failureText(err)}), so the sweep was stopped`, { cause: err });
          halt.abort();
        },
      });
    const repeatGroup = cfg.repeat > 1 ? randomUUID() : null;
    const recorders: Recorder[] = [];
    try {
      for (let r = 0; r < cfg.repeat; r++) recorders.push(await createOne(r));
    } catch (err) {
      throw apiFailure('create the run', cfg.api, err);
    }
    const recorder = recorders[0]!;
    const runUrl = `${cfg.web.replace(/\/+$/, '')}/runs/${recorder.runId}`;
    for (const rec of recorders) reporter.runCreated?.({ runId: rec.runId, runUrl: `${cfg.web.replace(/\/+$/, '')}/runs/${rec.runId}` });

    const contexts: StepContext[] = recorders.map((rec) => ({
      engine,
      recorder: rec,
      reporter: serverCost ? serverCost.watch(reporter) : reporter,
      monitor: new AgentMonitor(),
      origin: target.origin,
      request,
      mix,
      parseTiming,
      loadModel: cfg.loadModel,
      arrivals: cfg.arrivals,
      thinkTimeMs: cfg.thinkTimeMs,
      maxConnections,
      warmupMs: cfg.warmupMs,
      durationMs: cfg.durationMs,
      levelCount: cfg.levels.length,
      signal: halt.signal,
    }));
    const levels: LevelSummary[] = [];
    const perRun: LevelSummary[][] = recorders.map(() => []);
    let refinedLevels: number[] = [];
    let search: SearchResult | null = null;
    let failure: unknown;
    // Level by level, every repeat in turn: drift on the box lands on all of them alike.
    const sweepLevels = async (plan: number[], offset: number) => {
      for (const [i, level] of plan.entries()) {
        if (halt.signal.aborted) return;
        if (offset + i > 0) await prepare(level);
        for (const [r, ctx] of contexts.entries()) {
          if (halt.signal.aborted) return;
          const summary = await runStep(ctx, level, loadAt(cfg, level), offset + i);
          serverCost?.stepEnded((batch) => api.postServerMetrics(ctx.recorder.runId, batch));
          levels.push(summary);
          perRun[r]!.push(summary);
          reporter.stepFinished?.(summary);
        }
      }
    };
    try {
      if (cfg.search) {
        const runLevel = async (level: number, index: number) => {
          for (const ctx of contexts) ctx.levelCount = index + 1;
          await sweepLevels([level], index);
        };
        search = await searchLevels(cfg, runLevel, apiJudge(cfg, recorders, cfg.slos), () => halt.signal.aborted, (step) => reporter.searchStep?.(step));
      } else await sweepLevels(cfg.levels, 0);
      if (cfg.refine && !halt.signal.aborted) {
        refinedLevels = refineLevels(perRun[0]!, cfg.loadModel, cfg.parameter);
        if (refinedLevels.length > 0) {
          warn(`--refine: the knee lies between two levels of the grid; adding ${cfg.parameter} ${refinedLevels.join(', ')} to place it closer`);
          for (const ctx of contexts) ctx.levelCount = cfg.levels.length + refinedLevels.length;
          await sweepLevels(refinedLevels, cfg.levels.length);
        }
      }
    } catch (err) {
      failure = err;
    }
    await serverCost?.close();
    // Whatever happened, what was measured is delivered (or spooled) and the run is closed.
    const status = halt.signal.aborted || failure !== undefined ? 'aborted' : 'finished';
    const reports: Awaited<ReturnType<Recorder['finish']>>[] = [];
    for (const rec of recorders) reports.push(await rec.finish(status, { timeoutMs: cfg.deliveryTimeoutMs }));
    failure ??= lost;
    if (failure !== undefined) throw apiFailure('complete the sweep', cfg.api, failure);
    const sum = (key: 'recorded' | 'uploaded' | 'batches' | 'duplicateBatches' | 'lostEvents' | 'spooledEvents' | 'spooledEntries') => reports.reduce((a, r) => a + r[key], 0);
    const upload: UploadSummary = {
      recorded: sum('recorded'),
      uploaded: sum('uploaded'),
      batches: sum('batches'),
      duplicateBatches: sum('duplicateBatches'),
      lostEvents: sum('lostEvents'),
      spooledEvents: sum('spooledEvents'),
      spooledEntries: sum('spooledEntries'),
      spoolDir: reports[0]!.spoolDir,
    };
    const runIds = recorders.map((r) => r.runId);
    return { runId: recorder.runId, runIds, refinedLevels, search, engine: engine.kind, runUrl, status, loadModel: cfg.loadModel, parameter: cfg.parameter, levels, upload };
  } finally {
    await serverCost?.close();
    if (engine.kind === 'native') engine.request.dispose();
    await api.close();
  }
}

/** What an earlier agent could not deliver goes first, so the API sees every run whole. */
async function resendLeftovers(api: KneeboardApi, spoolDir: string, warn: (m: string) => void): Promise<void> {
  const r = await replaySpool({ api, spoolDir, retry: { initialDelayMs: 200, maxDelayMs: 2_000, giveUpAfterMs: 5_000 } });
  if (r.delivered + r.rejected + r.remaining > 0) {
    warn(
      `re-sent ${r.delivered} calls (${r.events} events) that earlier agents left in ${spoolDir}` +
        `${r.rejected > 0 ? `; ${r.rejected} refused by the API, kept in ${spoolDir}/rejected` : ''}` +
        `${r.remaining > 0 ? `; ${r.remaining} still waiting` : ''}`,
    );
  }
}

/** API failures become SweepErrors with the API's own message; anything else passes through. */
function apiFailure(what: string, apiUrl: string, err: unknown): unknown {
  if (err instanceof SweepError) return err;
  if (err instanceof ApiHttpError) return new SweepError('api-failed', `could not ${what}: the Kneeboard API answered ${err.message}`, { cause: err });
  if (isNetworkError(err)) {
    return new SweepError('api-failed', `could not ${what}: lost the Kneeboard API at ${apiUrl} (${describeCause(err)})`, { cause: err });
  }
  return err;
}

function failureText(err: unknown): string {
  if (err instanceof ApiHttpError) return describeStatus(err.status, err.body);
  return describeCause(err);
}
