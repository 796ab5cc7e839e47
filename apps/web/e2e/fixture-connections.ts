/**
 * A run over https whose agent reported each step's connections: keep-alive at 8 (8 connections,
 * a handshake each), a level that reconnects for every other request at 32 (handshakes a large
 * share of its latency), and a step at 16 whose agent sent none (an older agent).
 */
import type { RunDetail } from '@kneeboard/contracts';
import { point, run, stepsFor, uuid, withAnalysis } from './fixture-data.ts';

export const CONNECTIONS_RUN_ID = uuid(0x2700);

export const KEEP_ALIVE = { opened: 8, handshake_p50_ms: 1.8, handshake_p99_ms: 4.2, handshake_max_ms: 5.1 };
export const RECONNECTING = { opened: 6_000, handshake_p50_ms: 12.5, handshake_p99_ms: 31, handshake_max_ms: 48 };

export function connectionsRun(now: number): RunDetail {
  const created = now - 3 * 60 * 60 * 1000;
  const curve = [point(8, { qps: 1_600, p50_ms: 5 }), point(16, { qps: 1_900, p50_ms: 8.4 }), point(32, { qps: 1_200, p50_ms: 26 })];
  const steps = stepsFor(curve, created, 12_000, 2_000);
  return withAnalysis({
    run: run({ id: CONNECTIONS_RUN_ID, service: 'tls-gateway', release: 'v2.4.0', name: 'https, keep-alive off above 16', created_at: created, finished_at: created + 3 * 12_000 }),
    steps: [{ ...steps[0]!, connections: KEEP_ALIVE }, steps[1]!, { ...steps[2]!, connections: RECONNECTING }],
    curve,
  });
}
