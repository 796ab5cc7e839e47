import { DEFAULT_DEMO_TARGET_PORT, DEFAULT_HOST } from '@kneeboard/contracts/defaults';

export interface DemoTargetOptions {
  /** Worker slots W: how many requests are served at once. Default 4. */
  workers?: number;
  /** Service time S per request, in ms, held with a timer (no CPU burnt). Default 20. */
  serviceMs?: number;
  /** Uniform jitter: each service time is drawn from [S − J, S + J]. Must not exceed S. Default 0. */
  jitterMs?: number;
  /** Port to listen on; 0 picks a free one. Default 4100. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /**
   * A one-off stall: this long after the first served request, no slot is granted for `stallMs`
   * (requests already in service finish; everything else queues). Models a GC pause or a failover,
   * the case a closed-loop load generator hides. 0 (default) means no stall.
   */
  stallAfterMs?: number;
  stallMs?: number;
  /**
   * Real CPU burnt per served request, in ms of CPU time: a busy loop at the start of the request's
   * service time (which then lasts max(S, the loop's wall time)). 0 (default) burns nothing.
   */
  cpuMs?: number;
}

export type ResolvedDemoTargetOptions = Required<DemoTargetOptions>;

export const DEMO_TARGET_DEFAULTS: ResolvedDemoTargetOptions = {
  workers: 4,
  serviceMs: 20,
  jitterMs: 0,
  port: DEFAULT_DEMO_TARGET_PORT,
  host: DEFAULT_HOST,
  stallAfterMs: 0,
  stallMs: 0,
  cpuMs: 0,
};

/** Fills defaults and rejects values that would make the ground truth meaningless, naming the option. */
export function resolveDemoTargetOptions(options: DemoTargetOptions): ResolvedDemoTargetOptions {
  const o = { ...DEMO_TARGET_DEFAULTS, ...stripUndefined(options) };
  if (!Number.isInteger(o.workers) || o.workers < 1) throw new RangeError(`workers must be a positive integer, got ${o.workers}`);
  if (!Number.isFinite(o.serviceMs) || o.serviceMs < 0) throw new RangeError(`serviceMs must be a non-negative number, got ${o.serviceMs}`);
  if (!Number.isFinite(o.jitterMs) || o.jitterMs < 0 || o.jitterMs > o.serviceMs) {
    throw new RangeError(`jitterMs must be between 0 and serviceMs (${o.serviceMs}), got ${o.jitterMs}`);
  }
  for (const key of ['stallAfterMs', 'stallMs', 'cpuMs'] as const) {
    if (!Number.isFinite(o[key]) || o[key] < 0) throw new RangeError(`${key} must be a non-negative number, got ${o[key]}`);
  }
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65_535) throw new RangeError(`port must be 0–65535, got ${o.port}`);
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
