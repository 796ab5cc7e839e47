import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { burnCpu } from './cpu-burn.ts';
import { formatMetrics, METRICS_CONTENT_TYPE } from './metrics.ts';
import { resolveDemoTargetOptions, type DemoTargetOptions } from './options.ts';
import { formatServerTiming } from './server-timing.ts';
import { sampleServiceMs } from './service-time.ts';
import { SlotPool } from './slot-pool.ts';

export interface DemoTargetStats {
  /** Requests received and not yet answered (queued + being served). */
  inFlight: number;
  /** Highest inFlight seen since start or the last resetStats(): the load a client really applied. */
  maxInFlight: number;
  /** Requests waiting for a slot right now. */
  queued: number;
  /** Requests answered since start or the last resetStats(). */
  served: number;
  /** Stalls begun since start (0 or 1). */
  stalls: number;
}

export interface DemoTarget {
  url: string;
  port: number;
  stats(): DemoTargetStats;
  /** Starts a new observation window: maxInFlight restarts from the current inFlight, served from 0. */
  resetStats(): void;
  close(): Promise<void>;
}

/**
 * A service with a known latency-versus-load curve: W slots, service time S held by a timer, a FIFO
 * queue in front. Max throughput W·1000/S, knee at concurrency W, latency ≈ S below the knee and
 * ≈ c·S/W above it. Every response carries `Server-Timing: queue;dur=…, compute;dur=…`, where
 * compute is the slot time actually measured: never less than S, later on a busy machine whose timers
 * fire late (a slot that stays busy makes up its lateness on the next request).
 *
 * `GET /healthz`, `GET /stats` and `GET /metrics` (Prometheus text: process CPU and memory) bypass
 * the slots; every other request is served. With `cpuMs`, each served request burns that much real
 * CPU at the start of its service time.
 */
export async function startDemoTarget(options: DemoTargetOptions = {}): Promise<DemoTarget> {
  const o = resolveDemoTargetOptions(options);
  const slots = new SlotPool(o.workers);
  const holding = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let maxInFlight = 0;
  let served = 0;
  /** Served since start, never reset: the `/metrics` counter. */
  let servedTotal = 0;
  let stalls = 0;
  let stallArmed = o.stallMs > 0;
  const stallTimers = new Set<NodeJS.Timeout>();
  /** How late the hold of the slot being released right now ended; 0 outside release(). */
  let lateness = 0;
  const stats = (): DemoTargetStats => ({ inFlight, maxInFlight, queued: slots.queued, served, stalls });

  // The stall is timed from the first served request, so it lands inside a load run however long
  // the set-up before it took.
  function armStall(): void {
    stallArmed = false;
    const begin = setTimeout(() => {
      stalls += 1;
      slots.pause();
      const end = setTimeout(() => slots.resume(), o.stallMs);
      stallTimers.add(end);
    }, o.stallAfterMs);
    stallTimers.add(begin);
  }

  /**
   * Calls `done` once the monotonic clock has reached `dueAt`, never before. Node times a timer from
   * the event loop's clock as last read, in whole milliseconds — before the request's own callback
   * ran — so a timer alone fired up to ~1 ms early (a 20 ms slot measured 19.2 ms at the median on a
   * 2-core box): what is left is held by another timer.
   */
  function holdUntil(dueAt: number, done: () => void): void {
    const arm = (ms: number) => {
      const timer = setTimeout(() => {
        holding.delete(timer);
        const left = dueAt - performance.now();
        if (left > 0) arm(left);
        else done();
      }, ms);
      holding.add(timer);
    };
    arm(dueAt - performance.now());
  }

  function serve(req: IncomingMessage, res: ServerResponse): void {
    const arrivedAt = performance.now();
    if (stallArmed) armStall();
    // The body is not used; reading it keeps the keep-alive connection usable.
    req.resume();
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // A client that hangs up while queued gives its place away instead of consuming a slot.
    const cancel = slots.acquire(() => {
      const startedAt = performance.now();
      const queueMs = startedAt - arrivedAt;
      const serviceMs = sampleServiceMs(o.serviceMs, o.jitterMs);
      // --cpu-ms: real CPU work inside the service time; the timer then holds what is left of S.
      let burntMs = 0;
      if (o.cpuMs > 0) {
        burnCpu(o.cpuMs);
        burntMs = performance.now() - startedAt;
      }
      // Granted straight from a slot whose timer fired late: even it out on this request,
      // so a busy slot still serves 1000/S requests a second on a machine whose timers run late.
      const holdMs = Math.max(0, serviceMs - lateness - burntMs);
      // The hold begins after the burn: due S after the start, less what the previous holder overran.
      // (Due at startedAt + holdMs, the burn was counted twice: every queued request's lateness came out
      // ~cpuMs, the next one's hold that much shorter — 12 slots of 20 ms with 1 ms of CPU served
      // 631 req/s, not 600.)
      const dueAt = startedAt + burntMs + holdMs;
      holdUntil(dueAt, () => {
        const endedAt = performance.now();
        const computeMs = endedAt - startedAt;
        // Answer before releasing: release() may start the next request's CPU burn synchronously,
        // which must not delay this answer.
        if (!res.destroyed) {
          served += 1;
          servedTotal += 1;
          res.writeHead(200, {
            'content-type': 'application/json',
            'server-timing': formatServerTiming(queueMs, computeMs),
          });
          res.end(JSON.stringify({ queue_ms: round3(queueMs), compute_ms: round3(computeMs) }));
        }
        lateness = endedAt - dueAt;
        slots.release(); // hands the slot to the next queued request synchronously, with `lateness` set
        lateness = 0;
      });
    });
    res.once('close', () => {
      inFlight -= 1;
      cancel();
    });
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return sendJson(res, { ok: true });
    if (req.method === 'GET' && path === '/stats') return sendJson(res, stats());
    if (req.method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE });
      return void res.end(formatMetrics(servedTotal));
    }
    serve(req, res);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A load generator opens its connections in one burst (1,000 at once in the agent's tests);
    // Node's default accept backlog of 511 drops the rest of the SYNs, and the clients retry a
    // second later. The kernel caps this at net.core.somaxconn.
    server.listen({ port: o.port, host: o.host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;

  return {
    url: `http://${host}:${port}`,
    port,
    stats,
    resetStats() {
      maxInFlight = inFlight;
      served = 0;
    },
    close() {
      // Held timers would keep the process alive for up to S ms after close; their requests are gone anyway.
      for (const timer of [...holding, ...stallTimers]) clearTimeout(timer);
      holding.clear();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function sendJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
