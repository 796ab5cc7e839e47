import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startListeningProcess } from './listening-process.ts';

/**
 * A target that answers nothing until `n` requests are waiting at once, then holds them `holdMs`
 * more and answers them all. So it sees exactly `n` at once if the load generator can put `n` on
 * the wire — however slowly a busy box opens the connections — and never gets to `n` if a pool, a
 * CPU count or a socket limit caps it. A batch that stops growing for `idleMs` is answered as it is
 * (the end of a step, a preflight request), so nothing hangs.
 */
export interface BarrierStats {
  /** Most requests waiting at once. */
  maxInFlight: number;
  /** Batches answered because they reached `n`. */
  fullRounds: number;
  /** Batches answered because they stopped growing short of `n`. */
  partialReleases: number;
  served: number;
}

export interface BarrierTarget {
  url: string;
  stats(): Promise<BarrierStats>;
  stop(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);

/** In its own process, so the agent under test has its event loop (and the target its own) to itself. */
export async function startBarrierTarget(o: { n: number; holdMs: number; idleMs: number }): Promise<BarrierTarget> {
  const { url, stop } = await startListeningProcess('barrier target', ['--import', 'tsx', SELF, String(o.n), String(o.holdMs), String(o.idleMs)]);
  return { url, stats: async () => (await (await fetch(`${url}/stats`)).json()) as BarrierStats, stop };
}

function serve(n: number, holdMs: number, idleMs: number): void {
  const stats: BarrierStats = { maxInFlight: 0, fullRounds: 0, partialReleases: 0, served: 0 };
  let batch: ServerResponse[] = [];
  let idle: NodeJS.Timeout | undefined;
  const answer = (responses: ServerResponse[]) => {
    for (const res of responses) res.end('ok');
    stats.served += responses.length;
  };
  const server = createServer((req, res) => {
    if (req.url === '/stats') return res.setHeader('content-type', 'application/json').end(JSON.stringify(stats));
    // Read the body (none is expected) so the keep-alive connection stays usable.
    req.resume();
    batch.push(res);
    stats.maxInFlight = Math.max(stats.maxInFlight, batch.length);
    clearTimeout(idle);
    if (batch.length >= n) {
      const full = batch;
      batch = [];
      stats.fullRounds += 1;
      setTimeout(() => answer(full), holdMs);
    } else {
      idle = setTimeout(() => {
        const partial = batch;
        batch = [];
        stats.partialReleases += 1;
        answer(partial);
      }, idleMs);
    }
  });
  server.keepAliveTimeout = 60_000;
  // The agent opens its connections in one burst: a backlog of 1,000+ keeps the kernel from refusing some.
  server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
    console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[1] === SELF) serve(Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]));
