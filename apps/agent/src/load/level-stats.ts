import type { CurvePoint, LoadModel, StepHealth } from '@kneeboard/contracts';
import { MicrosHistogram } from './micros-histogram.ts';
import type { NameSummary } from './name-stats.ts';
import type { Completion } from './target-client.ts';

/** One level's numbers as printed: the API's CurvePoint fields, plus what only the agent knows. */
export interface LevelSummary extends CurvePoint {
  load_model: LoadModel;
  /** The load held: concurrency (closed loop) or offered requests/s (open loop). Equals `level` unless another knob is swept. */
  load: number;
  /**
   * Little's law: requests in flight on average = throughput × mean latency, over all requests in
   * the window. In a closed loop it should equal the concurrency.
   */
  in_flight: number | null;
  /** Open loop: requests actually sent per second (due in the window and handed to a connection). */
  sent_per_s: number | null;
  /** Errors in the window by cause: `{ "HTTP 503": 12, "ECONNRESET": 1 }`. */
  error_kinds: Record<string, number>;
  /** Responses whose Server-Timing header had parts that could not be parsed. */
  unparseable_timings: number;
  /** True when the sweep was stopped during this level. */
  aborted: boolean;
  health: StepHealth;
  /** https:// on either engine: the level's TLS handshakes, so one dominated by reconnects shows. */
  tls_handshakes?: TlsHandshakes;
  /** `--requests`: the level per request name (count, errors, QPS, p50/p99), in the mix's order. */
  by_name?: NameSummary[];
}

/** Every TLS handshake of a step (warm-up included), ms from the TCP connect to the handshake's end. */
export interface TlsHandshakes {
  count: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

/** µs resolution: latencies are recorded as integers, 3 significant digits kept at any magnitude. */
const newHistogram = (): MicrosHistogram => new MicrosHistogram();
const toMicros = (ms: number): number => Math.max(0, Math.round(ms * 1000));

export type LevelNumbers = Omit<LevelSummary, 'load_model' | 'load' | 'sent_per_s' | 'health'>;

/**
 * Local statistics of one level, computed as the API computes its curve point (same window, same
 * success rule: the contracts' isSuccessStatus, status 1–399) so the live table and the dashboard agree.
 */
export class LevelStats {
  private requests = 0;
  private errors = 0;
  private latencySumMs = 0;
  private okLatencySumMs = 0;
  private unparseable = 0;
  private readonly errorKinds = new Map<string, number>();
  private readonly latency = newHistogram();
  private readonly compute = newHistogram();
  private readonly queue = newHistogram();
  private readonly other = newHistogram();

  constructor(
    readonly level: number,
    private readonly measureFrom: number,
    private endAt: number,
  ) {}

  /** The window closed early (Ctrl-C): later completions are outside it. */
  closeAt(endAt: number): void {
    this.endAt = Math.min(this.endAt, endAt);
  }

  /** `completedAtMs` is epoch ms, as stored. */
  add(completedAtMs: number, latencyMs: number, c: Pick<Completion, 'errorKind' | 'computeMs' | 'queueMs' | 'unparseable'>): void {
    this.addValues(completedAtMs, latencyMs, c.errorKind, c.computeMs ?? Number.NaN, c.queueMs ?? Number.NaN, c.unparseable);
  }

  /** The same with no object per request (a block of columns): compute/queue NaN when absent. */
  addValues(completedAtMs: number, latencyMs: number, errorKind: string | null, computeMs: number, queueMs: number, unparseable: number): void {
    if (completedAtMs < this.measureFrom || completedAtMs > this.endAt) return;
    this.requests += 1;
    this.latencySumMs += latencyMs;
    if (unparseable > 0) this.unparseable += 1;
    if (errorKind !== null) {
      this.errors += 1;
      this.errorKinds.set(errorKind, (this.errorKinds.get(errorKind) ?? 0) + 1);
      return;
    }
    this.okLatencySumMs += latencyMs;
    this.latency.recordValue(toMicros(latencyMs));
    const hasCompute = computeMs === computeMs;
    const hasQueue = queueMs === queueMs;
    if (hasCompute) this.compute.recordValue(toMicros(computeMs));
    if (hasQueue) this.queue.recordValue(toMicros(queueMs));
    if (hasCompute || hasQueue) this.other.recordValue(toMicros(latencyMs - (hasCompute ? computeMs : 0) - (hasQueue ? queueMs : 0)));
  }

  /** Mean latency over every request in the window (errors included), ms. */
  meanLatencyMs(): number | null {
    return this.requests > 0 ? this.latencySumMs / this.requests : null;
  }

  /** The window actually measured: [measureFrom, endedAt], shorter than planned if the sweep stopped. */
  summarize(measureFrom: number, endedAt: number, aborted: boolean): LevelNumbers {
    const windowMs = Math.max(0, endedAt - measureFrom);
    const window_s = windowMs / 1000;
    const ok = this.requests - this.errors;
    const latency = percentiles(this.latency);
    const compute = percentiles(this.compute);
    const queue = percentiles(this.queue);
    return {
      level: this.level,
      requests: this.requests,
      errors: this.errors,
      qps: window_s > 0 ? ok / window_s : 0,
      window_s,
      mean_ms: ok > 0 ? this.okLatencySumMs / ok : null,
      p50_ms: latency(50),
      p90_ms: latency(90),
      p99_ms: latency(99),
      p999_ms: latency(99.9),
      compute_p50_ms: compute(50),
      compute_p99_ms: compute(99),
      queue_p50_ms: queue(50),
      queue_p99_ms: queue(99),
      other_p50_ms: percentiles(this.other)(50),
      in_progress: false,
      in_flight: windowMs > 0 && this.requests > 0 ? Math.round((this.latencySumMs / windowMs) * 1000) / 1000 : null,
      error_kinds: Object.fromEntries(this.errorKinds),
      unparseable_timings: this.unparseable,
      aborted,
    };
  }
}

/** A histogram's percentiles in ms; a percentile of no samples is null, never 0. */
function percentiles(h: MicrosHistogram): (p: number) => number | null {
  if (h.totalCount === 0) return () => null;
  const hdr = h.hdr();
  return (p) => hdr.getValueAtPercentile(p) / 1000;
}
