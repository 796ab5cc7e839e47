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
  return {
    args,
    dispose: () => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
