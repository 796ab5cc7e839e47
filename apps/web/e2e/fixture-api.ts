/**
 * A stand-in for the Kneeboard API on loopback, serving the contract's shapes from fixture data:
 *   GET /api/v1/runs?service=&release=&limit=   ListRunsResponse, newest first
 *   GET /api/v1/runs/{id}                       RunDetail (with `analysis`), 404 ApiError for unknown ids
 *   GET /api/v1/runs/{id}?name=X                that request name's curve (a `named` run, fixture-names.ts; the live run with `liveRunNamed`), else 404 naming `name`
 *   GET /api/v1/runs/{id}/names                 every request name's curve (RunNameCurves; empty for a run without names)
 *   GET /api/v1/runs/{id}/analysis              RunAnalysis
 *   GET /api/v1/runs/{id}/levels/{level}        LevelDetail made from rows consistent with the curve (fixture-level-detail.ts)
 *   GET /api/v1/runs/{id}/timeline              RunTimeline from the steps and curve (fixture-timeline.ts)
 *   GET /api/v1/runs/{id}/cost                  RunCost: `costs`' answer for the run, else a run without server metrics (no levels)
 *   GET /api/v1/runs/{id}/live                  SSE: `snapshot` (full RunDetail) on connect and on
 *                                               every change, `end` once the run is over; `?name=X`
 *                                               that name's detail (as `?name=X` above), else 404 naming `name`
 * plus one live run that gains a level every `liveStepMs`, and (fixture-review-routes.ts) the
 * comparison, exports, labels and notes, services and short links. The test process owns it:
 * control it with the returned methods.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LIVE_EVENT, type ApiError, type RunCost, type RunDetail, type RunSummary, type UpdateRunBody } from '@kneeboard/contracts';
import { FIXTURE_IDS, LIVE_LEVELS, liveRunAt, staticRuns } from './fixture-data.ts';
import { levelDetailFor } from './fixture-level-detail.ts';
import { timelineFor } from './fixture-timeline.ts';
import { releaseRuns } from './fixture-releases.ts';
import { repeatRuns } from './fixture-repeats.ts';
import { createReviewRoutes, type ReviewRoutesStats } from './fixture-review-routes.ts';
import { namedDetail, namedRun, nameCurvesFor } from './fixture-names.ts';

export interface FixtureApiOptions {
  /**
   * Static runs to serve; defaults to the fixture set (seed 001, a generator-limited sweep, a wide
   * sweep, an aborted run), each with its analysis (`withAnalysis`), as the API sends them.
   */
  runs?: RunDetail[];
  /** Serve the live run (default true). */
  live?: boolean;
  /** Time between live ticks (default 300 ms). */
  liveStepMs?: number;
  liveLevels?: number[];
  /** Port to listen on (default: any free port). */
  port?: number;
  /** Also serve the release runs of seeds 004 and 000 (fusillade, crowkis) for comparisons (default false). */
  releases?: boolean;
  /** Also serve `relay`'s repeated sweeps (3 runs of v2.0.0, 2 of v2.1.0) for group comparisons (default false). */
  repeats?: boolean;
  /** The live run at a tick, instead of the 8-worker sweep (`liveLevels` unused then); its id must be FIXTURE_IDS.live. */
  liveRun?: (tick: number, createdAt: number, stepMs: number) => RunDetail;
  /** The live run's `?name=` answer at a tick (null: no such name, 404 naming `name`); unset: the live run answers no `?name=`. */
  liveRunNamed?: (tick: number, createdAt: number, stepMs: number, name: string) => RunDetail | null;
  /** A run's cost, for runs that read server metrics (fixture-cost.ts); null or unset: the run read none. */
  costs?: (detail: RunDetail) => RunCost | null;
  /** Also serve a run whose requests carry three names, answering `?name=` (fixture-names.ts; default false). */
  named?: boolean;
}

export interface FixtureStats {
  liveStreams: number;
  /** Of those, the streams opened with `name=`, by name. */
  namedLiveStreams: Record<string, number>;
  detailGets: Record<string, number>;
  listGets: number;
  review: ReviewRoutesStats;
}

export interface FixtureApi {
  /** `http://127.0.0.1:<port>`: pass as KNEEBOARD_API_URL. */
  url: string;
  port: number;
  liveRunId: string;
  /** The static runs served, newest first. */
  runs: RunDetail[];
  /** Start the live run over from its first level (and as running). */
  restartLive(): void;
  /** Serve one more run from now on (a run started while a page is open). */
  addRun(run: RunDetail): void;
  /** Hold the live run at its current tick (true) or let it progress again (false). */
  setLivePaused(paused: boolean): void;
  /** Hold the live run at this tick (setLivePaused(false) lets it go on from there): a spec steps through snapshots it chose. */
  holdLiveAt(tick: number): void;
  /** false: `/live` answers 503 JSON, so the browser must fall back to polling. */
  setSseEnabled(enabled: boolean): void;
  stats(): FixtureStats;
  close(): Promise<void>;
}

function summary(d: RunDetail): RunSummary {
  const done = d.curve.filter((p) => !p.in_progress);
  return {
    ...d.run,
    levels: d.curve.length,
    requests: d.curve.reduce((n, p) => n + p.requests, 0),
    peak_qps: (done.length > 0 ? done : d.curve).reduce<number | null>((m, p) => (m === null || p.qps > m ? p.qps : m), null),
  };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function notFound(res: http.ServerResponse, message: string): void {
  const body: ApiError = { statusCode: 404, error: 'Not Found', message };
  sendJson(res, 404, body);
}

export async function startFixtureApi(options: FixtureApiOptions = {}): Promise<FixtureApi> {
  const now = Date.now();
  const given = options.runs ?? [...staticRuns(now), ...(options.releases ? releaseRuns(now) : []), ...(options.repeats ? repeatRuns(now) : [])].sort((a, b) => b.run.created_at - a.run.created_at);
  const named = options.named ? [namedRun(now)] : [];
  const runs = named.length === 0 ? [...given] : [...given, ...named.map((n) => n.detail)].sort((a, b) => b.run.created_at - a.run.created_at);
  const withLive = options.live ?? true;
  const stepMs = options.liveStepMs ?? 300;
  const levels = options.liveLevels ?? LIVE_LEVELS;

  let liveStart = Date.now();
  let createdAt = liveStart;
  let pausedAtTick: number | null = null;
  let sseEnabled = true;
  const stats = { liveStreams: 0, namedLiveStreams: {} as Record<string, number>, detailGets: {} as Record<string, number>, listGets: 0 };
  /** Labels and notes set with PATCH, laid over the runs (the API always sends both). */
  const edits = new Map<string, UpdateRunBody>();
  const edited = (d: RunDetail): RunDetail => ({ ...d, run: { ...d.run, labels: d.run.labels ?? [], note: d.run.note ?? '', ...edits.get(d.run.id) } });
  const streams = new Set<http.ServerResponse>();

  const liveTick = () => pausedAtTick ?? Math.floor((Date.now() - liveStart) / stepMs);
  const live = () => (options.liveRun ? options.liveRun(liveTick(), createdAt, stepMs) : liveRunAt(liveTick(), createdAt, levels, stepMs));
  const all = (): RunDetail[] => (withLive ? [live(), ...runs] : runs).map(edited);
  const find = (id: string) => all().find((d) => d.run.id === id);

  /** The live stream's snapshot: the run's, or with `name=` that request name's (null: no such run or name). */
  const snapshotOf = (id: string, name: string | null): RunDetail | null => {
    const d = find(id);
    if (!d || name === null) return d ?? null;
    return d.run.id === FIXTURE_IDS.live && options.liveRunNamed ? options.liveRunNamed(liveTick(), createdAt, stepMs, name) : namedDetail(d, name, named);
  };
  const unknownName = (res: http.ServerResponse, name: string) => sendJson(res, 404, { statusCode: 404, error: 'Not Found', message: `request name ${JSON.stringify(name)} in this run not found`, field: 'name' });

  function stream(req: http.IncomingMessage, res: http.ServerResponse, id: string, name: string | null): void {
    if (!sseEnabled) return sendJson(res, 503, { statusCode: 503, error: 'Service Unavailable', message: 'live updates are switched off in this fixture' });
    if (!find(id)) return notFound(res, `no run ${id}`);
    if (name !== null && !snapshotOf(id, name)) return unknownName(res, name);
    stats.liveStreams++;
    if (name !== null) stats.namedLiveStreams[name] = (stats.namedLiveStreams[name] ?? 0) + 1;
    // Deliberately no `no-transform`: the web app must get events through unbuffered regardless.
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    streams.add(res);
    let last = '';
    const push = () => {
      const d = snapshotOf(id, name);
      if (!d) return;
      const data = JSON.stringify(d);
      if (data !== last) {
        last = data;
        res.write(`event: ${LIVE_EVENT.snapshot}\ndata: ${data}\n\n`);
      }
      if (d.run.status !== 'running') {
        res.write(`event: ${LIVE_EVENT.end}\ndata: {}\n\n`);
        stop();
        res.end();
      }
    };
    const poll = setInterval(push, Math.min(100, stepMs / 3));
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 10_000);
    const stop = () => {
      clearInterval(poll);
      clearInterval(heartbeat);
      streams.delete(res);
    };
    req.on('close', stop);
    push();
  }

  const review = createReviewRoutes({
    all,
    find,
    summary,
    patch: (id, body) => edits.set(id, { ...edits.get(id), ...body }),
  });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    review.handle(req, res, url).then(
      (handled) => {
        if (!handled) route(req, res, url);
      },
      (err: unknown) => sendJson(res, 500, { statusCode: 500, error: 'Internal Server Error', message: String(err) }),
    );
  });

  function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    const parts = url.pathname.split('/').filter(Boolean); // api, v1, runs, {id}, live
    if (req.method !== 'GET') return sendJson(res, 405, { statusCode: 405, error: 'Method Not Allowed', message: `${req.method} is not served by the fixture` });
    if (url.pathname === '/healthz') return sendJson(res, 200, { ok: true });
    if (parts[0] !== 'api' || parts[1] !== 'v1' || parts[2] !== 'runs') return notFound(res, `no route ${url.pathname}`);
    const id = parts[3];
    if (id === undefined) {
      stats.listGets++;
      const service = url.searchParams.get('service');
      const release = url.searchParams.get('release');
      const status = url.searchParams.get('status');
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const list = all()
        .filter((d) => (!service || d.run.service === service) && (!release || d.run.release === release) && (!status || d.run.status === status))
        .sort((a, b) => b.run.created_at - a.run.created_at)
        .slice(0, limit)
        .map(summary);
      return sendJson(res, 200, { runs: list });
    }
    if (parts.length === 4) {
      stats.detailGets[id] = (stats.detailGets[id] ?? 0) + 1;
      const d = find(id);
      const name = url.searchParams.get('name');
      if (d && name !== null) {
        const n = snapshotOf(id, name);
        return n ? sendJson(res, 200, n) : unknownName(res, name);
      }
      return d ? sendJson(res, 200, d) : notFound(res, `no run ${id}`);
    }
    if (parts.length === 5 && parts[4] === 'live') return stream(req, res, id, url.searchParams.get('name'));
    if (parts.length === 5 && parts[4] === 'names') {
      const d = find(id);
      return d ? sendJson(res, 200, nameCurvesFor(d, named)) : notFound(res, `no run ${id}`);
    }
    if (parts.length === 5 && parts[4] === 'analysis') {
      const d = find(id);
      return d?.analysis ? sendJson(res, 200, d.analysis) : notFound(res, `no run ${id}`);
    }
    // Unless `costs` gives one, a run read no server metrics: the answer the real API gives such a run.
    if (parts.length === 5 && parts[4] === 'cost') {
      const d = find(id);
      return d ? sendJson(res, 200, options.costs?.(d) ?? { levels: [], verdict: null, scaling: null }) : notFound(res, `no run ${id}`);
    }
    if (parts.length === 5 && parts[4] === 'timeline') {
      const d = find(id);
      return d ? sendJson(res, 200, timelineFor(d)) : notFound(res, `no run ${id}`);
    }
    if (parts.length === 6 && parts[4] === 'levels') {
      const d = find(id);
      const level = Number(parts[5]);
      if (!(level > 0)) return sendJson(res, 400, { statusCode: 400, error: 'Bad Request', message: 'level: must be a positive number', field: 'params.level' });
      const detail = d ? levelDetailFor(d, level) : null;
      return detail ? sendJson(res, 200, detail) : notFound(res, d ? `level ${level} of this run not found` : `no run ${id}`);
    }
    return notFound(res, `no route ${url.pathname}`);
  }

  // As the real API (KEEP_ALIVE_MS): Node's default 5 s equals the idle time of the Next proxy's
  // client agent, and the race between them answered the browser a 500 now and then.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    liveRunId: FIXTURE_IDS.live,
    runs,
    addRun(d) {
      runs.unshift(d);
      runs.sort((a, b) => b.run.created_at - a.run.created_at);
    },
    restartLive() {
      liveStart = Date.now();
      createdAt = liveStart;
      pausedAtTick = null;
    },
    setLivePaused(paused) {
      if (paused) {
        pausedAtTick ??= liveTick();
      } else if (pausedAtTick !== null) {
        liveStart = Date.now() - pausedAtTick * stepMs;
        pausedAtTick = null;
      }
    },
    holdLiveAt(tick) {
      pausedAtTick = tick;
    },
    setSseEnabled(enabled) {
      sseEnabled = enabled;
    },
    stats: () => ({ ...structuredClone(stats), review: review.stats() }),
    async close() {
      for (const res of streams) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
