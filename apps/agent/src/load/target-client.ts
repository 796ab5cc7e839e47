import { performance } from 'node:perf_hooks';
import { createSecureContext, rootCertificates, TLSSocket, type SecureContext } from 'node:tls';
import { buildConnector, Pool, type Dispatcher } from 'undici';
import { describeCause, type ServerTimingParser } from '@kneeboard/agent-sdk';
import { errorKindOf } from './error-kind.ts';

export interface TargetRequest {
  /** Path and query, e.g. `/search?q=1`; the origin is the pool's. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Longest wait for the response headers, and for each next piece of the body. */
  timeoutMs: number;
  /** https:// targets: how the server's certificate is checked (default: the system's roots). */
  tls?: TargetTls;
}

/** `--insecure` / `--ca-file`, for both engines. */
export interface TargetTls {
  /** Accept any certificate (self-signed, wrong name): the CLI warns. */
  insecure: boolean;
  /** A PEM file of extra trusted certificates (a private CA, or the server's own certificate). */
  caFile?: string;
  /** Its contents, read once when the sweep starts. */
  caPem?: string;
}

/** What the message says when the target's certificate is not trusted, on either engine. */
export const UNTRUSTED_CERTIFICATE = 'certificate not trusted: pass --insecure or --ca-file';

/** Node's (OpenSSL's) codes for a certificate chain the trusted roots do not vouch for, and the native engine's kind. */
const UNTRUSTED_CODES = /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|CERT_UNTRUSTED|CERT_HAS_EXPIRED|ERR_TLS_CERT_ALTNAME_INVALID|certificate not trusted|self[- ]signed certificate|unable to verify/i;

export function isUntrustedCertificate(errorKind: string | null): boolean {
  return errorKind !== null && UNTRUSTED_CODES.test(errorKind);
}

/** How one request ended. Times are performance.now() milliseconds. */
export interface Completion {
  /** HTTP status; 0 when the request failed below HTTP. */
  status: number;
  /** Why it counts as an error (`ECONNRESET`, `HTTP 503`…), or null for a success (the contracts' isSuccessStatus: 1–399). */
  errorKind: string | null;
  computeMs: number | null;
  queueMs: number | null;
  /** Server-Timing entries that could not be parsed. */
  unparseable: number;
  /** When the request was written to a connection; null if it never was (e.g. the connect failed). */
  sentAt: number | null;
  endedAt: number;
}

export interface FireHooks {
  /** The request is being written to its connection: it is on the wire from now. */
  onSent(at: number): void;
  onDone(c: Completion): void;
}

/**
 * A keep-alive connection pool to the target that opens connections as requests need them, up to
 * `connections`, one request per connection at a time (no pipelining: a pipelined request waits
 * behind the one before it, which is the agent queueing, not the server).
 */
export function createTargetPool(origin: string, connections: number, connectTimeoutMs: number, tls?: TargetTls, onHandshake?: (ms: number) => void): Pool {
  const connect = { timeout: connectTimeoutMs, ...tlsConnectOptions(tls) };
  return new Pool(origin, { connections, pipelining: 1, connect: onHandshake ? timedConnector(connect, onHandshake) : connect });
}

/**
 * undici's own connector, with each TLS handshake timed as the native engine times it: from the
 * TCP connect (the TLS socket's 'connect') to the handshake's end (its 'secureConnect', when undici
 * hands the connection over). A handshake that fails is not counted, as in the native engine.
 * undici's connector returns the socket it made (not in its types): without it nothing is timed.
 */
function timedConnector(options: buildConnector.BuildOptions, onHandshake: (ms: number) => void): buildConnector.connector {
  const connect = buildConnector(options);
  return (opts, callback) => {
    let tcpAt: number | null = null;
    const socket: unknown = connect(opts, (...args) => {
      if (args[0] === null && tcpAt !== null) onHandshake(performance.now() - tcpAt);
      callback(...args);
    });
    if (socket instanceof TLSSocket) socket.once('connect', () => (tcpAt = performance.now()));
  };
}

/**
 * undici's TLS options: `ca` replaces Node's roots, so the extra PEM is added to them, not used alone.
 * The trust is built once per sweep and shared by every connection: given as `ca`, Node parses the
 * ~140 system roots again for each connection (64 ms each, measured on the 2-core box), which on a
 * busy host took a whole short level before the first request left.
 */
function tlsConnectOptions(tls: TargetTls | undefined): { rejectUnauthorized?: boolean; secureContext?: SecureContext } {
  if (tls === undefined) return {};
  if (tls.insecure) return { rejectUnauthorized: false };
  if (tls.caPem === undefined) return {};
  let context = trustContexts.get(tls);
  if (context === undefined) trustContexts.set(tls, (context = createSecureContext({ ca: [...rootCertificates, tls.caPem] })));
  return { secureContext: context };
}
const trustContexts = new WeakMap<TargetTls, SecureContext>();

/**
 * Sends one request through undici's low-level dispatch API: no promise, no stream, no parsed
 * body — the fastest path undici offers, and the only one that says when the request actually
 * left (onRequestStart), which is how requests queued inside the agent are told apart from
 * requests in flight. Never throws; every outcome, failures included, reaches onDone exactly once.
 */
export function fire(dispatcher: Dispatcher, req: TargetRequest, parseTiming: ServerTimingParser, hooks: FireHooks): void {
  const handler = new TimedHandler(parseTiming, hooks);
  try {
    dispatcher.dispatch(
      { path: req.path, method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body, headersTimeout: req.timeoutMs, bodyTimeout: req.timeoutMs },
      handler,
    );
  } catch (err) {
    handler.onResponseError(null, err as Error);
  }
}

class TimedHandler implements Dispatcher.DispatchHandler {
  private sentAt: number | null = null;
  private status = 0;
  private timingHeader: string | string[] | undefined;
  private finished = false;

  constructor(
    private readonly parseTiming: ServerTimingParser,
    private readonly hooks: FireHooks,
  ) {}

  onRequestStart(): void {
    this.sentAt = performance.now();
    this.hooks.onSent(this.sentAt);
  }

  onResponseStart(_controller: unknown, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.status = statusCode;
    this.timingHeader = headers['server-timing'];
  }

  onResponseData(): void {
    // The body is read and dropped: only its end matters for the latency.
  }

  onResponseEnd(): void {
    if (this.finished) return;
    this.finished = true;
    const endedAt = performance.now();
    const t = this.parseTiming(this.timingHeader);
    this.hooks.onDone({
      status: this.status,
      errorKind: errorKindOf(this.status),
      computeMs: t.computeMs,
      queueMs: t.queueMs,
      unparseable: t.unparseable,
      sentAt: this.sentAt,
      endedAt,
    });
  }

  onResponseError(_controller: unknown, err: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.hooks.onDone({ status: 0, errorKind: errorKindOf(0, describeCause(err)), computeMs: null, queueMs: null, unparseable: 0, sentAt: this.sentAt, endedAt: performance.now() });
  }
}
