import { MicrosHistogram } from './micros-histogram.ts';

const toMicros = (ms: number): number => Math.max(0, Math.round(ms * 1000));

/** One request name's numbers over a level's window (`--requests`). */
export interface NameSummary {
  name: string;
  /** Requests that completed in the window, errors included. */
  requests: number;
  errors: number;
  /** Successes per second over the window. */
  qps: number;
  /** Latency of the successes, as the level's own percentiles. */
  p50_ms: number | null;
  p99_ms: number | null;
  /** The server's own compute time (Server-Timing), p50 of the successes that carried one. */
  compute_p50_ms: number | null;
}

/**
 * A level's requests split by name: count, errors and latency percentiles per name, with the same
 * window and success rule as LevelStats (the caller passes what LevelStats decided per request).
 */
export class NameStats {
  private readonly requests: Uint32Array;
  private readonly errors: Uint32Array;
  private readonly latency: MicrosHistogram[];
  private readonly compute: MicrosHistogram[];

  constructor(
    private readonly names: readonly string[],
    /** Request index in the mix → index in `names`. */
    private readonly nameOf: Uint16Array,
    private readonly measureFrom: number,
    private endAt: number,
  ) {
    this.requests = new Uint32Array(names.length);
    this.errors = new Uint32Array(names.length);
    this.latency = names.map(() => new MicrosHistogram());
    this.compute = names.map(() => new MicrosHistogram());
  }

  closeAt(endAt: number): void {
    this.endAt = Math.min(this.endAt, endAt);
  }

  /** One request: its index in the mix, completion (epoch ms), latency, whether it failed, its compute time (NaN: none). */
  add(request: number, completedAtMs: number, latencyMs: number, failed: boolean, computeMs: number): void {
    if (completedAtMs < this.measureFrom || completedAtMs > this.endAt) return;
    const n = this.nameOf[request];
    if (n === undefined) return;
    this.requests[n]! += 1;
    if (failed) this.errors[n]! += 1;
    else {
      this.latency[n]!.recordValue(toMicros(latencyMs));
      if (computeMs === computeMs) this.compute[n]!.recordValue(toMicros(computeMs));
    }
  }

  summarize(windowS: number): NameSummary[] {
    return this.names.map((name, n) => {
      const h = this.latency[n]!.hdr();
      const c = this.compute[n]!.hdr();
      const ok = this.requests[n]! - this.errors[n]!;
      return {
        name,
        requests: this.requests[n]!,
        errors: this.errors[n]!,
        qps: windowS > 0 ? ok / windowS : 0,
        p50_ms: h.totalCount === 0 ? null : h.getValueAtPercentile(50) / 1000,
        p99_ms: h.totalCount === 0 ? null : h.getValueAtPercentile(99) / 1000,
        compute_p50_ms: c.totalCount === 0 ? null : c.getValueAtPercentile(50) / 1000,
      };
    });
  }
}
