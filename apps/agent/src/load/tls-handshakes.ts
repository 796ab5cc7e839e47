import type { TlsHandshakes } from './level-stats.ts';

/**
 * The Node engine's TLS handshakes of one step, summarized as the native engine summarizes its own
 * (engine/src/tls.rs HandshakeStats): each handshake kept in whole µs (truncated), p50/p99 by
 * nearest rank on the sorted values, max the largest. A step opens a few connections per unit of
 * load, so every value is kept: exact, and the same figures on either engine.
 */
export class HandshakeTimes {
  private readonly us: number[] = [];

  /** One handshake: ms from the TCP connect to the TLS handshake's end. */
  add(ms: number): void {
    this.us.push(Math.max(0, Math.floor(ms * 1000)));
  }

  summary(): TlsHandshakes {
    const n = this.us.length;
    if (n === 0) return { count: 0, p50_ms: null, p99_ms: null, max_ms: null };
    const sorted = Float64Array.from(this.us).sort();
    const rank = (p: number) => sorted[Math.min(n, Math.max(1, Math.ceil((p / 100) * n))) - 1]! / 1000;
    return { count: n, p50_ms: rank(50), p99_ms: rank(99), max_ms: sorted[n - 1]! / 1000 };
  }
}
