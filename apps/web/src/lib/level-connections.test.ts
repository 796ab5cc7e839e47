import { describe, expect, it } from 'vitest';
import { connectionsView } from './level-connections.ts';

describe('connectionsView', () => {
  const tls = { opened: 8, handshake_p50_ms: 2, handshake_p99_ms: 7.5, handshake_max_ms: 9.75 };

  it('shows opened and the handshake percentiles; keep-alive (8 handshakes for 10,000 requests) is not flagged', () => {
    const v = connectionsView(tls, 10_000, 5);
    expect(v.opened).toBe('connections opened 8');
    expect(v.handshake).toBe('TLS handshake p50 2.00 ms, p99 7.50 ms, max 9.75 ms');
    expect(v.share).toBeCloseTo(16 / 50_000, 9);
    expect(v.flag).toBeNull();
  });

  it('flags a level that reconnects for every other request, in words', () => {
    const v = connectionsView({ ...tls, opened: 500 }, 1_000, 4);
    expect(v.share).toBeCloseTo(0.25, 9);
    expect(v.flag).toBe("TLS handshakes are about 25% of this level's request time (a new connection every 2 requests): the curve here measures reconnecting more than the service — check keep-alive on the target.");
  });

  it('plain HTTP: opened only, no share and no flag; no request: no share', () => {
    const v = connectionsView({ opened: 500, handshake_p50_ms: null, handshake_p99_ms: null, handshake_max_ms: null }, 1_000, 4);
    expect([v.handshake, v.share, v.flag]).toEqual([null, null, null]);
    expect(connectionsView(tls, 0, null).share).toBeNull();
  });
});
