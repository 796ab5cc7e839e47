import { z } from 'zod';
import { KneeboardApi } from '../recorder/api-client.ts';
import { ApiHttpError, describeCause, describeStatus, isNetworkError } from '../recorder/api-errors.ts';
import { EventRecorder, type UploadStats } from '../recorder/event-recorder.ts';
import { SweepConfig, type SweepInput } from './config.ts';
import type { LevelSummary } from './level-stats.ts';
import { checkApi, probeTarget } from './preflight.ts';
import type { SweepReporter } from './reporter.ts';
import { runStep } from './run-step.ts';
import type { TargetRequest } from './send-request.ts';
import { SweepError } from './sweep-error.ts';

export interface SweepResult {
  runId: string;
  runUrl: string;
  status: 'finished' | 'aborted';
  levels: LevelSummary[];
  upload: UploadStats;
}

export interface SweepContext {
  /** Aborting stops the sweep: the current step's window is closed, events flushed, the run finished as 'aborted'. */
  signal?: AbortSignal;
  reporter?: SweepReporter;
}

/**
 * A closed-loop sweep: checks the API and the target, creates the run, runs each level in turn,
 * uploads every request, finishes the run. Throws a SweepError with a message for people when
 * something is unreachable or refused.
 */
export async function runSweep(input: SweepInput, context: SweepContext = {}): Promise<SweepResult> {
  const parsed = SweepConfig.safeParse(input);
  if (!parsed.success) throw new SweepError('config', `invalid sweep options:\n${z.prettifyError(parsed.error)}`);
  const cfg = parsed.data;
  const signal = context.signal ?? new AbortController().signal;
  const reporter = context.reporter ?? {};
  const target = new URL(cfg.target);
  const request: TargetRequest = {
    path: target.pathname + target.search,
    method: cfg.request.method,
    headers: { 'user-agent': 'kneeboard-agent', ...cfg.request.headers },
    body: cfg.request.body,
    timeoutMs: cfg.request.timeoutMs,
  };
  const api = new KneeboardApi({
    baseUrl: cfg.api,
    retry: cfg.retry,
    onRetry: (n) => reporter.warn?.(`could not ${n.what} (${failureText(n.error)}); retrying in ${Math.round(n.delayMs)} ms`),
  });

  try {
    await checkApi(api);
    const probe = await probeTarget(target, request, signal);
    if (probe.computeMs === null && probe.queueMs === null) {
      reporter.warn?.(`the target sends no Server-Timing queue or compute duration: those columns will stay empty`);
    }

    const runId = await api
      .createRun({
        ...cfg.run,
        load_model: 'closed',
        parameter: 'concurrency',
        agent_host: cfg.agentHost,
        agent_cores: cfg.agentCores,
      })
      .catch((err: unknown) => {
        throw apiFailure('create the run', cfg.api, err);
      });
    const runUrl = `${cfg.web.replace(/\/+$/, '')}/runs/${runId}`;
    reporter.runCreated?.({ runId, runUrl });

    // Stops the steps on Ctrl-C, and also once events are being lost: load whose timings cannot be
    // stored is wasted on the target.
    const halt = new AbortController();
    if (signal.aborted) halt.abort();
    signal.addEventListener('abort', () => halt.abort(), { once: true });
    let lost: SweepError | undefined;
    const recorder = new EventRecorder({
      send: (batch) => api.postEvents(runId, batch),
      agentId: cfg.agentId,
      flushIntervalMs: cfg.flushIntervalMs,
      maxBatchEvents: cfg.maxBatchEvents,
      onBatchLost: (err, events) => {
        reporter.warn?.(`gave up on a batch of ${events} events: ${failureText(err)}`);
        lost ??= new SweepError('api-failed', `events could not be stored (${failureText(err)}), so the sweep was stopped`, { cause: err });
        halt.abort();
      },
    });
    const ctx = {
      api,
      runId,
      recorder,
      reporter,
      origin: target.origin,
      request,
      warmupMs: cfg.warmupMs,
      durationMs: cfg.durationMs,
      levelCount: cfg.levels.length,
      signal: halt.signal,
    };

    const levels: LevelSummary[] = [];
    let failure: unknown;
    try {
      for (const [index, level] of cfg.levels.entries()) {
        if (halt.signal.aborted) break;
        const summary = await runStep(ctx, level, index);
        levels.push(summary);
        reporter.stepFinished?.(summary);
      }
    } catch (err) {
      failure = err;
    }
    // Whatever happened, what was measured is delivered and the run is closed.
    const upload = await recorder.close();
    failure ??= lost;
    const status = halt.signal.aborted || failure !== undefined ? 'aborted' : 'finished';
    try {
      await api.finishRun(runId, status);
    } catch (err) {
      if (failure === undefined) failure = err;
      else reporter.warn?.(`could not mark the run ${status}: ${failureText(err)}`);
    }
    if (failure !== undefined) throw apiFailure('complete the sweep', cfg.api, failure);
    return { runId, runUrl, status, levels, upload };
  } finally {
    await api.close();
  }
}

/** API failures become SweepErrors with the API's own message; anything else is a bug and passes through. */
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
