/**
 * Prepare a level's connection figures (opened, TLS handshake p50/p99) and judge whether its
 * handshakes are a large share of its latency — a level that keeps reconnecting pays a handshake
 * every few requests, and its curve then measures TLS rather than the service.
 */
import type { StepConnections } from '@kneeboard/contracts';
import { formatMs, formatPercent, formatSignificant } from '@kneeboard/contracts/figures';

/** Handshakes at or above this share of the level's request time are called out in words. */
export const HANDSHAKE_SHARE_FLAG = 0.1;

export interface ConnectionsView {
  /** `connections opened 16` */
  opened: string;
  /** `TLS handshake p50 1.25 ms, p99 7.50 ms, max 9.75 ms`; null over plain HTTP or when not timed. */
  handshake: string | null;
  /** Handshake time ÷ request time over the step; null when it cannot be told. */
  share: number | null;
  /** One sentence when the share is large; null otherwise. */
  flag: string | null;
}

/**
 * `requests` and `meanMs` are the level's measured window (LevelDetail). The handshakes span the
 * whole step, warm-up included, and p50 stands in for their mean: the share is an estimate, fit for
 * telling "a few percent" from "most of it".
 */
export function connectionsView(c: StepConnections, requests: number, meanMs: number | null): ConnectionsView {
  const opened = `connections opened ${c.opened.toLocaleString('en-US')}`;
  const p50 = c.handshake_p50_ms;
  const handshake =
    p50 === null
      ? null
      : `TLS handshake p50 ${formatMs(p50)} ms, p99 ${formatMs(c.handshake_p99_ms)} ms${c.handshake_max_ms === null ? '' : `, max ${formatMs(c.handshake_max_ms)} ms`}`;
  const requestMs = meanMs === null ? 0 : requests * meanMs;
  const share = p50 === null || requestMs <= 0 ? null : Math.min(1, (c.opened * p50) / requestMs);
  const every = c.opened > 0 ? requests / c.opened : null;
  const flag =
    share !== null && share >= HANDSHAKE_SHARE_FLAG
      ? `TLS handshakes are about ${formatPercent(share)} of this level's request time${every !== null ? ` (a new connection every ${formatSignificant(every, 2)} requests)` : ''}: the curve here measures reconnecting more than the service — check keep-alive on the target.`
      : null;
  return { opened, handshake, share, flag };
}

/** Each level's connections, for the steps whose agent reported them; empty for a run without any (no columns then). */
export function connectionsByLevel(steps: ReadonlyArray<{ level: number; connections?: StepConnections | null | undefined }>): ReadonlyMap<number, StepConnections> {
  const out = new Map<number, StepConnections>();
  for (const s of steps) if (s.connections) out.set(s.level, s.connections);
  return out;
}

/** The curve table's handshake cell: `1.80 / 4.20`, a dash over plain HTTP. */
export function handshakeCell(c: StepConnections | undefined): string {
  return c && c.handshake_p50_ms !== null ? `${formatMs(c.handshake_p50_ms)} / ${formatMs(c.handshake_p99_ms)}` : '—';
}
