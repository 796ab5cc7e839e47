import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ARROW_STREAM_CONTENT_TYPE, ArrowBatchQuery, CreateRunBody, EventBatch, FinishRunBody, formatPath, StepWindow } from '@kneeboard/contracts';
import { ANY_TIME, BatchRejected, columnsToArrays, decodeArrowColumns } from '@kneeboard/event-wire';

export type Route = 'healthz' | 'runs' | 'run' | 'steps' | 'events' | 'finish';

/** Anything with zod's safeParse: the contracts' schemas. */
interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

/** One events POST as received, whatever the answer. */
export interface EventsAttempt {
  batchId: string;
  events: number;
  answered: number | 'drop';
  at: number;
}

/**
 * A stand-in for the Kneeboard API on 127.0.0.1, for testing a load generator's integration
 * without ClickHouse. Built on node:http only: it validates bodies with the real contracts and
 * decodes Arrow batches with the API's own decoder (400 with the ApiError shape otherwise), stores
 * batches once per batch_id, records everything it received, and can be told to fail the next
 * calls of a route.
 */
export class FakeApi {
  readonly runs: Array<{ id: string; body: CreateRunBody }> = [];
  readonly steps: Array<{ runId: string; step: StepWindow; at: number }> = [];
  /** Stored batches (first successful copy of each batch_id). */
  readonly batches: EventBatch[] = [];
  readonly eventsAttempts: EventsAttempt[] = [];
  private readonly runOfBatch = new Map<string, string>();
  readonly finishes: Array<{ runId: string; status: string }> = [];
  private readonly failures: Array<{ route: Route; how: number | 'drop'; retryAfter?: string }> = [];
  private server = createServer((req, res) => void this.handle(req, res));
  url = '';

  static async start(port = 0): Promise<FakeApi> {
    const api = new FakeApi();
    await new Promise<void>((resolve) => api.server.listen(port, '127.0.0.1', resolve));
    api.url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    return api;
  }

  /** The next `times` calls to `route` get `how`: a status code, or 'drop' (socket destroyed, no answer). */
  failNext(route: Route, times: number, how: number | 'drop', retryAfter?: string): void {
    for (let i = 0; i < times; i++) this.failures.push({ route, how, retryAfter });
  }

  /** The API is healthy again: pending injected failures are forgotten. */
  clearFailures(): void {
    this.failures.length = 0;
  }

  /** Every stored event (of one run, if given), concatenated in arrival order. */
  events(runId?: string): Array<{ level: number; ts: number; latency: number; compute: number | null; queue: number | null; status: number; name: string | null }> {
    const batches = runId === undefined ? this.batches : this.batches.filter((b) => this.runOfBatch.get(b.batch_id) === runId);
    return batches.flatMap((b) =>
      b.level.map((level, i) => ({
        level,
        ts: b.ts_ms[i]!,
        latency: b.latency_ms[i]!,
        compute: b.compute_ms[i]!,
        queue: b.queue_ms[i]!,
        status: b.status[i]!,
        name: b.name?.[i] ?? null,
      })),
    );
  }

  /** The latest window posted for each level (the API's rule: the latest post wins). */
  finalSteps(runId?: string): Map<number, StepWindow> {
    const out = new Map<number, StepWindow>();
    for (const s of this.steps) if (runId === undefined || s.runId === runId) out.set(s.step.level, s.step);
    return out;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path = '', queryString = ''] = (req.url ?? '').split('?');
    const m = /^\/api\/v1\/runs(?:\/([^/]+)(?:\/(steps|events|finish))?)?$/.exec(path);
    const route: Route | undefined =
      path === '/healthz' ? 'healthz' : m ? ((m[2] as Route | undefined) ?? (m[1] !== undefined && req.method === 'GET' ? 'run' : 'runs')) : undefined;
    const raw = await readBody(req);
    const isArrow = req.headers['content-type']?.split(';')[0]?.trim() === ARROW_STREAM_CONTENT_TYPE;
    if (route === undefined) return send(res, 404, { statusCode: 404, error: 'Not Found', message: `no route ${path}` });

    const failureAt = this.failures.findIndex((f) => f.route === route);
    const failure = failureAt === -1 ? undefined : this.failures.splice(failureAt, 1)[0];
    let json: unknown;
    let refusal: { field: string; message: string } | undefined;
    try {
      json = isArrow ? arrowAsJson(raw, queryString) : raw.length === 0 ? undefined : (JSON.parse(raw.toString('utf8')) as unknown);
    } catch (err) {
      if (!(err instanceof BatchRejected) && !(err instanceof SyntaxError)) throw err;
      refusal = { field: err instanceof BatchRejected ? err.field : 'body', message: err.message };
    }
    if (route === 'events') {
      const b = (json ?? {}) as { batch_id?: string; level?: unknown[] };
      const batchId = isArrow ? new URLSearchParams(queryString).get('batch_id') : b.batch_id;
      const attempt: EventsAttempt = { batchId: String(batchId), events: b.level?.length ?? 0, answered: 'drop', at: Date.now() };
      this.eventsAttempts.push(attempt);
      res.once('finish', () => (attempt.answered = res.statusCode));
    }
    if (failure?.how === 'drop') return void req.socket.destroy();
    if (refusal) return send(res, 400, { statusCode: 400, error: 'Bad Request', message: `${refusal.field}: ${refusal.message}`, field: refusal.field });
    if (failure) {
      const headers: Record<string, string> = failure.retryAfter === undefined ? {} : { 'retry-after': failure.retryAfter };
      return send(res, failure.how, { statusCode: failure.how, error: 'Injected', message: 'injected failure' }, headers);
    }

    const runId = m?.[1] ?? '';
    if ((route === 'steps' || route === 'events' || route === 'finish') && !this.runs.some((r) => r.id === runId)) {
      return send(res, 400, { statusCode: 400, error: 'Bad Request', message: `unknown run ${runId}`, field: 'id' });
    }
    switch (route) {
      case 'healthz':
        return send(res, 200, { ok: true });
      case 'run': {
        const run = this.runs.find((r) => r.id === runId);
        if (!run) return send(res, 404, { statusCode: 404, error: 'Not Found', message: `unknown run ${runId}` });
        const finish = this.finishes.filter((f) => f.runId === runId).at(-1);
        const { service, release, load_model, parameter, tags } = run.body;
        return send(res, 200, {
          run: { id: runId, service, name: '', release, git_sha: null, load_model, parameter, tags, agent_host: null, agent_cores: null, status: finish?.status ?? 'running', created_at: 1, finished_at: null },
          steps: [],
          curve: [],
        });
      }
      case 'runs':
        return this.validated(res, CreateRunBody, json, (body) => {
          const id = randomUUID();
          this.runs.push({ id, body });
          send(res, 201, { id });
        });
      case 'steps':
        return this.validated(res, StepWindow, json, (step) => {
          this.steps.push({ runId, step, at: Date.now() });
          send(res, 200, { ok: true });
        });
      case 'events':
        return this.validated(res, EventBatch, json, (batch) => {
          const duplicate = this.batches.some((b) => b.batch_id === batch.batch_id);
          if (!duplicate) {
            this.batches.push(batch);
            this.runOfBatch.set(batch.batch_id, runId);
          }
          send(res, 200, { accepted: duplicate ? 0 : batch.level.length, duplicate });
        });
      case 'finish':
        return this.validated(res, FinishRunBody, json, (body) => {
          this.finishes.push({ runId, status: body.status });
          send(res, 200, { ok: true });
        });
    }
  }

  private validated<T>(res: ServerResponse, schema: Schema<T>, json: unknown, ok: (value: T) => void): void {
    const parsed = schema.safeParse(json);
    if (parsed.success) return ok(parsed.data);
    const issues = parsed.error.issues.map((i) => ({ field: formatPath(i.path), message: i.message }));
    send(res, 400, { statusCode: 400, error: 'Bad Request', message: `${issues[0]?.field}: ${issues[0]?.message}`, field: issues[0]?.field, issues });
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** An Arrow batch as the JSON batch it stands for, so it is checked and stored like one. */
function arrowAsJson(bytes: Buffer, queryString: string): unknown {
  const ids = ArrowBatchQuery.safeParse(Object.fromEntries(new URLSearchParams(queryString)));
  if (!ids.success) throw new BatchRejected([{ field: `querystring.${formatPath(ids.error.issues[0]?.path ?? [])}`, message: 'batch_id and agent_id are required' }]);
  return { ...ids.data, ...columnsToArrays(decodeArrowColumns(bytes, ANY_TIME)) };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
