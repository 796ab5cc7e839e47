import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Timed {
  status: number;
  serverTiming: string | undefined;
  body: string;
  latencyMs: number;
  /** performance.now() when the whole body had arrived. */
  doneAt: number;
}

/** One GET on its own connection, so concurrent calls really are concurrent at the server. */
export function timedGet(url: string): Promise<Timed> {
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
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
  });
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
