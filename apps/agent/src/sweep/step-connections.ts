import type { StepConnectionsInput } from '@kneeboard/agent-sdk';
import type { DriverResult } from './step-driver.ts';

/**
 * What the step's final window says about its connections: how many the engine opened and, over
 * TLS where the engine times them, the handshakes' p50/p99/max. Null when the engine did not count
 * (the API then stores none, as for an older agent).
 */
export function stepConnections(result: Pick<DriverResult, 'opened' | 'tls'>): StepConnectionsInput | null {
  const opened = result.opened ?? result.tls?.count ?? null;
  if (opened === null) return null;
  const tls = result.tls ?? null;
  return { opened, handshake_p50_ms: tls?.p50_ms ?? null, handshake_p99_ms: tls?.p99_ms ?? null, handshake_max_ms: tls?.max_ms ?? null };
}
