import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
import { describeCause, type ServerTimingParser } from '@kneeboard/agent-sdk';
import { errorKindOf } from './error-kind.ts';
import type { Completion, TargetRequest } from './target-client.ts';

/** Fields HTTP/2 forbids (RFC 9113 §8.2.2); host is :authority. */
const CONNECTION_SPECIFIC = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/**
 * One request over HTTP/2 on its own connection (prior knowledge on http://, ALPN h2 on https://):
 * the preflight of a `--http2` sweep, whose target may speak nothing else. The same Completion as
 * the HTTP/1.1 probe (`sendOnce`), with the same trust (`--insecure`, `--ca-file`). Never throws.
 */
export function sendOnceH2(origin: string, request: TargetRequest, parseTiming: ServerTimingParser): Promise<Completion> {
  return new Promise<Completion>((resolve) => {
    let sentAt: number | null = null;
    let session: ClientHttp2Session | undefined;
    let settled = false;
    const finish = (c: Completion) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session?.destroy();
      resolve(c);
    };
    const fail = (err: unknown) =>
      finish({ status: 0, errorKind: errorKindOf(0, describeCause(err)), computeMs: null, queueMs: null, unparseable: 0, sentAt, endedAt: performance.now() });
    const timer = setTimeout(() => fail(new Error('no response in time')), request.timeoutMs);
    const tls = request.tls;
    const options: SecureClientSessionOptions = tls?.insecure ? { rejectUnauthorized: false } : tls?.caPem !== undefined ? { ca: [...rootCertificates, tls.caPem] } : {};
    try {
      session = connect(origin, options);
    } catch (err) {
      fail(err);
      return;
    }
    session.on('error', fail);
    const headers: Record<string, string> = { ':method': request.method, ':path': request.path };
    for (const [name, value] of Object.entries(request.headers)) if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    const stream = session.request(headers, { endStream: request.body === undefined });
    sentAt = performance.now();
    if (request.body !== undefined) stream.end(request.body);
    let head: IncomingHttpHeaders | undefined;
    stream.on('response', (h) => (head = h));
    stream.on('data', () => {}); // the body is read and dropped, as the engines do
    stream.on('error', fail);
    stream.on('end', () => {
      const status = Number(head?.[':status'] ?? 0);
      const t = parseTiming(head?.['server-timing']);
      finish({ status, errorKind: errorKindOf(status), computeMs: t.computeMs, queueMs: t.queueMs, unparseable: t.unparseable, sentAt, endedAt: performance.now() });
    });
  });
}
