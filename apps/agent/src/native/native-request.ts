import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetRequest } from '../load/target-client.ts';

/** The request as engine flags, prepared once per sweep; `dispose` removes the body file. */
export interface NativeRequest {
  args: string[];
  dispose(): void;
}

/**
 * Flags for the request every step sends. The body travels as a file (any size, any bytes); a
 * header value with a line break would split the request, so it is refused here, as undici
 * refuses it on the Node engine.
 */
export function prepareNativeRequest(
  origin: string,
  req: TargetRequest,
  timing: { compute: readonly string[]; queue: readonly string[] },
  protocol: { http: '1.1' | '2' | 'auto'; connections?: number } = { http: '1.1' },
  mix?: { requests: readonly TargetRequest[]; weights: readonly number[] },
): NativeRequest {
  const args = ['--url', origin, '--path', req.path, '--method', req.method, '--timeout-ms', String(req.timeoutMs)];
  for (const [name, value] of Object.entries(req.headers)) {
    if (/[\r\n]/.test(value)) throw new Error(`header ${name}: a value must not contain a line break`);
    args.push('--header', `${name}: ${value}`);
  }
  args.push('--compute-metric', timing.compute.join(','), '--queue-metric', timing.queue.join(','));
  // Only for https:// (the engine refuses them on http://); the engine reads the CA file itself.
  if (req.tls?.insecure) args.push('--insecure');
  else if (req.tls?.caFile !== undefined) args.push('--ca-file', req.tls.caFile);
  // HTTP/2 (and how many connections its streams use) is the engine's to speak; 1.1 is its default.
  if (protocol.http !== '1.1') args.push('--http', protocol.http);
  if (protocol.connections !== undefined) args.push('--connections', String(protocol.connections));
  let dir: string | undefined;
  if (req.body !== undefined) {
    dir = mkdtempSync(join(tmpdir(), 'kb-engine-body-'));
    const file = join(dir, 'body');
    writeFileSync(file, req.body);
    args.push('--body-file', file);
  }
  if (mix !== undefined) {
    dir ??= mkdtempSync(join(tmpdir(), 'kb-engine-body-'));
    const file = join(dir, 'requests');
    writeFileSync(file, encodeRequestsFile(mix.requests, mix.weights));
    args.push('--requests-file', file);
  }
  return {
    args,
    dispose: () => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The mix as the engine's `--requests-file` (README: "Request mixes"): a first line
 * `kneeboard-requests 1`, then per request `R <weight> <METHOD> <path>`, a line `H <name>: <value>`
 * per header, and for a body `B <bytes>` followed by exactly that many bytes. Paths, names and
 * values are single lines (checked by the mix's schema and here), so the engine splits on \n.
 */
export function encodeRequestsFile(requests: readonly TargetRequest[], weights: readonly number[]): Buffer {
  const parts: Buffer[] = [Buffer.from('kneeboard-requests 1\n')];
  requests.forEach((r, i) => {
    if (/[\s]/.test(r.path)) throw new Error(`request ${i + 1}: a path must not contain white space`);
    let head = `R ${weights[i]} ${r.method} ${r.path}\n`;
    for (const [name, value] of Object.entries(r.headers)) {
      if (/[\r\n]/.test(value)) throw new Error(`request ${i + 1}: header ${name}: a value must not contain a line break`);
      head += `H ${name}: ${value}\n`;
    }
    parts.push(Buffer.from(head));
    if (r.body !== undefined) {
      const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
      parts.push(Buffer.from(`B ${body.length}\n`), body);
    }
  });
  return Buffer.concat(parts);
}
