import { Agent, request, type ClientRequest } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Timed {
  status: number;
  serverTiming: string | undefined;
  body: string;
  latencyMs: number;
  /** performance.now() when the whole body had arrived. */
  doneAt: number;
}

/**
 * One GET, by default on its own new connection so concurrent calls really are concurrent at the
 * server. `onRequest` receives the request, e.g. to destroy it (a client hanging up).
 */
export function timedGet(url: string, agent: Agent | false = false, onRequest?: (req: ClientRequest) => void): Promise<Timed> {
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('error', reject);
      res.on('end', () => {
        const doneAt = performance.now();
        const raw = res.headers['server-timing'];
        const header = Array.isArray(raw) ? raw.join(', ') : raw;
        resolve({ status: res.statusCode ?? 0, serverTiming: header, body, latencyMs: doneAt - startedAt, doneAt });
      });
    });
    req.on('error', reject);
    req.end();
    onRequest?.(req);
  });
}

/**
 * A keep-alive agent with `n` connections already open, so `n` requests sent together reach the
 * server together: connection set-up on a busy machine would otherwise stagger their arrival.
 */
export async function warmAgent(url: string, n: number): Promise<Agent> {
  const agent = new Agent({ keepAlive: true, maxSockets: n });
  await Promise.all(Array.from({ length: n }, () => timedGet(`${url}/healthz`, agent)));
  return agent;
}

/** Parses the demo target's own Server-Timing format; the agent has the lenient general parser. */
export function parseDemoTiming(header: string | undefined): { queue: number; compute: number } {
  const m = /^queue;dur=(\d+\.\d+), compute;dur=(\d+\.\d+)$/.exec(header ?? '');
  if (!m) throw new Error(`unexpected Server-Timing: ${header}`);
  return { queue: Number(m[1]), compute: Number(m[2]) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `ok()` holds; fails after `timeoutMs` rather than hanging the test. */
export async function waitFor(ok: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error('condition not reached in time');
    await sleep(1);
  }
}
