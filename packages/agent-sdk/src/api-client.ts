import { Agent, request } from 'undici';
import {
  CreateRunBody,
  CreateRunResponse,
  endpointPath,
  ENDPOINTS,
  IngestResponse,
  ListRunsResponse,
  type RunSummary,
  RunDetail,
  StepWindow,
  type CreateRunInput,
  type EventBatch,
  ServerMetricsBatch,
  type ServerMetricsBatchInput,
  type StepWindowInput,
} from '@kneeboard/contracts';
import type { EventColumns } from '@kneeboard/event-wire';
import { apiHttpError, authorization, checkApiShape, parseApiJson } from '@kneeboard/api-client';
import { ApiHttpError } from './api-errors.ts';
import { DEFAULT_RETRY_POLICY, isRetriable, withRetry, type RetryNotice, type RetryPolicy } from './retry.ts';
import { batchBody } from './wire-body.ts';

export interface KneeboardApiOptions {
  /** e.g. http://127.0.0.1:4000 */
  baseUrl: string;
  retry?: RetryPolicy;
  /** Told about every retry, e.g. to print a warning. */
  onRetry?: (notice: RetryNotice & { what: string }) => void;
  /** Per attempt: no response headers or body progress for this long fails the attempt. Default 15 s. */
  attemptTimeoutMs?: number;
  /** An API token (`kneeboard token create --scope ingest`), sent as `Authorization: Bearer`. */
  token?: string | undefined;
}

/**
 * The Kneeboard ingest API, as a load generator sees it. Every call except health() retries
 * 408/429/502/503/504/507 and network errors with backoff, resending the identical body.
 */
export class KneeboardApi {
  readonly baseUrl: string;
  private readonly retry: RetryPolicy;
  private readonly onRetry: KneeboardApiOptions['onRetry'];
  private readonly attemptTimeoutMs: number;
  private readonly authorization: Record<string, string>;
  /** Start of the current run of retriable failures, shared by all calls (see RetryHooks.failingSince). */
  private failingSince: number | undefined;
  // Its own connections: API traffic must never wait behind, or add to, the load on the target.
  private readonly dispatcher = new Agent({ connections: 4, pipelining: 1, connect: { timeout: 5_000 } });

  constructor(options: KneeboardApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.onRetry = options.onRetry;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 15_000;
    this.authorization = authorization(options.token);
  }

  /** One quick GET /healthz, no retries: for a clear start-up message when the API is not there. */
  async health(timeoutMs = 3_000): Promise<void> {
    await this.attempt('GET', endpointPath(ENDPOINTS.healthz, {}), undefined, timeoutMs);
  }

  /** The run's status (`running`, `finished`, `aborted`), or null when the API does not know the run. */
  async runStatus(runId: string): Promise<string | null> {
    try {
      const path = endpointPath(ENDPOINTS.getRun, { id: runId });
      return checkApiShape('GET', this.baseUrl + path, await this.attempt('GET', path, undefined, this.attemptTimeoutMs), RunDetail.pick({ run: true })).run.status;
    } catch (err) {
      if (err instanceof ApiHttpError && (err.status === 404 || err.status === 400)) return null;
      throw err;
    }
  }

  /** Runs, newest first, e.g. to find one by its tags. One attempt, like runStatus. */
  async listRuns(query: { service?: string; release?: string; limit?: number } = {}): Promise<RunSummary[]> {
    const path = endpointPath(ENDPOINTS.listRuns, {}, query);
    return checkApiShape('GET', this.baseUrl + path, await this.attempt('GET', path, undefined, this.attemptTimeoutMs), ListRunsResponse).runs;
  }

  async createRun(body: CreateRunInput): Promise<string> {
    const path = endpointPath(ENDPOINTS.createRun, {});
    const json = await this.call('create the run', 'POST', path, CreateRunBody.parse(body));
    return checkApiShape('POST', this.baseUrl + path, json, CreateRunResponse).id;
  }

  /** Posting a level again replaces its window: post with ended_at null at the start, then the final window. */
  async postStep(runId: string, step: StepWindowInput): Promise<void> {
    await this.call(`post step ${step.level}`, 'POST', endpointPath(ENDPOINTS.postStep, { id: runId }), StepWindow.parse(step));
  }

  /** A step's server metrics (issue 28): a retry rewrites the same seconds, so the API stores them once. */
  async postServerMetrics(runId: string, batch: ServerMetricsBatchInput): Promise<void> {
    await this.call(`post server metrics of level ${batch.level}`, 'POST', endpointPath(ENDPOINTS.postServerMetrics, { id: runId }), ServerMetricsBatch.parse(batch));
  }

  /** A JSON batch, resent with the same batch_id on retry, so the API stores it once. */
  async postEvents(runId: string, batch: EventBatch): Promise<IngestResponse> {
    const path = endpointPath(ENDPOINTS.postEvents, { id: runId });
    return checkApiShape('POST', this.baseUrl + path, await this.call(`send batch ${batch.batch_id}`, 'POST', path, batch), IngestResponse);
  }

  /** A batch of typed columns as one Arrow IPC stream (with retries, the same bytes each time). */
  async postEventColumns(runId: string, batchId: string, agentId: string, columns: EventColumns): Promise<IngestResponse> {
    const body = batchBody('arrow', batchId, agentId, columns);
    const path = endpointPath(ENDPOINTS.postEvents, { id: runId }, new URLSearchParams(body.query));
    const json = await withRetry(() => this.postOnce(path, body.bytes, body.contentType), this.retry, {
      onRetry: (notice) => this.onRetry?.({ ...notice, what: `send batch ${batchId}` }),
      failingSince: () => this.failingSince ?? Date.now(),
    });
    return checkApiShape('POST', this.baseUrl + path, json, IngestResponse);
  }

  /** `span`: the test's own start (and end) where the API's clock does not know it — an import's file times. */
  async finishRun(runId: string, status: 'finished' | 'aborted', span: { started_at: number; finished_at?: number } | null = null): Promise<void> {
    await this.call('finish the run', 'POST', endpointPath(ENDPOINTS.finishRun, { id: runId }), { status, ...span });
  }

  /**
   * One attempt at POSTing an already-serialised body, no retries: for the delivery queue, which
   * retries on its own terms (it keeps data on disk, so it never has to give up mid-run).
   */
  async postOnce(path: string, body: string | Uint8Array, contentType = 'application/json'): Promise<unknown> {
    try {
      const result = await this.attempt('POST', path, body, this.attemptTimeoutMs, contentType);
      this.failingSince = undefined;
      return result;
    } catch (err) {
      if (isRetriable(err)) this.failingSince ??= Date.now();
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private call(what: string, method: string, path: string, body: unknown): Promise<unknown> {
    const text = JSON.stringify(body);
    return withRetry(
      async () => {
        try {
          const result = await this.attempt(method, path, text, this.attemptTimeoutMs);
          this.failingSince = undefined;
          return result;
        } catch (err) {
          if (isRetriable(err)) this.failingSince ??= Date.now();
          throw err;
        }
      },
      this.retry,
      { onRetry: (notice) => this.onRetry?.({ ...notice, what }), failingSince: () => this.failingSince ?? Date.now() },
    );
  }

  private async attempt(method: string, path: string, body: string | Uint8Array | undefined, timeoutMs: number, contentType = 'application/json'): Promise<unknown> {
    const url = this.baseUrl + path;
    const res = await request(url, {
      method: method as 'GET' | 'POST',
      dispatcher: this.dispatcher,
      headers: body === undefined ? this.authorization : { ...this.authorization, 'content-type': contentType },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    // The transport is the SDK's own (undici, its own connection pool); reading the answer is the shared core's.
    if (res.statusCode < 200 || res.statusCode > 299) throw apiHttpError(method, url, res.statusCode, text, res.headers['retry-after']);
    return parseApiJson(method, url, text);
  }
}
