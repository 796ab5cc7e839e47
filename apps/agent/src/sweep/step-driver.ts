import type { AgentUsage } from '../load/agent-monitor.ts';
import type { TlsHandshakes } from '../load/level-stats.ts';
import type { OpenLoopCounts } from '../load/open-loop.ts';

/** One request as the step records it, whichever engine sent it. */
export interface StepEvent {
  /** Completion time, epoch ms. */
  tsMs: number;
  /** From the send (closed loop) or the intended send time (open loop), ms. */
  latencyMs: number;
  computeMs: number | null;
  queueMs: number | null;
  /** HTTP status; 0 when the request failed below HTTP. */
  status: number;
  /** Why it counts as an error (`ECONNRESET`, `HTTP 503`…), or null for a success (the contracts' isSuccessStatus: 1–399). */
  errorKind: string | null;
  unparseable: number;
  /** `--requests`: the request's index in the mix (its name is the mix's). */
  request?: number;
}

/** What a step needs from an engine at its end: what was sent, and how the engine itself fared. */
export interface DriverResult {
  open: OpenLoopCounts | null;
  /** Time-weighted requests on the wire over the window. */
  inFlightMean: number | null;
  usage: AgentUsage | null;
  /** Connections open to the target when the window closed. */
  connections: number | null;
  /** https:// on either engine: the step's TLS handshakes (one per connection opened); null for http://. */
  tls?: TlsHandshakes | null;
  /** Connections the engine opened to the target over the whole step; null or absent when it does not count them. */
  opened?: number | null;
}


/** The plan of one step, in the terms both engines take. */
export interface StepPlan {
  loadModel: 'closed' | 'open';
  /** Concurrency or requests/s. */
  load: number;
  warmupMs: number;
  durationMs: number;
}

/**
 * A block of requests in columns, as the native engine sends them: the step takes it without an
 * object per request. Times are ms since the step's start (the `startedAtEpochMs` given to
 * BeginStep); compute/queue are NaN when the server did not say.
 */
export interface StepColumns {
  length: number;
  intended: Float64Array;
  ended: Float64Array;
  compute: Float64Array;
  queue: Float64Array;
  status: Uint16Array;
  /** 0: an HTTP response; k ≥ 1: `kinds[k-1]`, a transport error; `cancelled`: not an event, skipped. */
  kind: Uint8Array;
  kinds: readonly string[];
  cancelled: number;
  unparseable: Uint8Array;
  /** Each request's index in the mix (`--requests`; all 0 without one). */
  request?: Uint16Array;
}

/** Where an engine puts its requests: one at a time, or (when the step offers it) a block at a time. */
export interface StepSink {
  (e: StepEvent): void;
  columns?: (c: StepColumns) => void;
}

/**
 * Called once, synchronously, when the engine fixes the step's first send time (epoch ms); returns
 * the sink for its events. Events never arrive before it.
 */
export type BeginStep = (startedAtEpochMs: number) => StepSink;

/** A step under way in one of the engines. */
export interface StepDriver {
  /** Requests on the wire right now (for the progress line). */
  inFlight(): number;
  /** Ctrl-C: stop sending now and close the window now; requests in flight get a grace period, then are cut off. */
  stop(): void;
  done: Promise<DriverResult>;
}
