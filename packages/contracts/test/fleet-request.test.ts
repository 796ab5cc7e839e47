import { describe, expect, it } from 'vitest';
import { FleetPlanBody, formatPath, MAX_FLEET_CA_PEM_CHARS, MAX_FLEET_MIX_CHARS, MAX_MIX_REQUESTS } from '../src/index.ts';

const plan = (request: Record<string, unknown>) => ({ agents: 2, steps: [{ level: 4, load: 4 }], duration_ms: 1_000, request: { target: 'https://shop.test/', ...request } });
const entry = (i: number, extra: Record<string, unknown> = {}) => ({ name: `e${i}`, method: 'GET', path: `/e/${i}`, weight: 1, ...extra });
/** Where the first problem is, as the API's 400 names it. */
const fieldOf = (body: unknown) => {
  const r = FleetPlanBody.safeParse(body);
  return r.success ? null : formatPath(r.error.issues[0]!.path);
};

describe("a fleet plan's request", () => {
  it('carries a mix and the transport, with the defaults a one-request plan had', () => {
    const parsed = FleetPlanBody.parse(plan({ requests: [entry(0), entry(1, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } })], http: '2', connections: 4, ca_pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' }));
    expect(parsed.request.requests![1]).toEqual({ name: 'e1', method: 'POST', path: '/e/1', headers: { 'content-type': 'application/json' }, body: '{"a":1}', weight: 1 });
    expect(parsed.request.requests![0]!.body).toBeNull();
    expect(parsed.request).toMatchObject({ http: '2', connections: 4, insecure: false });
    // A plan made before mixes and transport existed (stored facts) still reads, as HTTP/1.1 with the system's trust.
    const old = FleetPlanBody.parse(plan({})).request;
    expect(old).toMatchObject({ http: '1.1', insecure: false });
    expect([old.requests, old.ca_pem, old.connections]).toEqual([undefined, undefined, undefined]);
  });

  it('refuses, naming the field: a bad entry, an unknown key (a file path is no request), too many requests, too large a mix or CA', () => {
    expect(fieldOf(plan({ requests: [entry(0), entry(1, { weight: 0 })] }))).toBe('request.requests[1].weight');
    expect(fieldOf(plan({ requests: [entry(0, { path: 'e0' })] }))).toBe('request.requests[0].path');
    expect(fieldOf(plan({ requests: [entry(0, { name: 'a\nb' })] }))).toBe('request.requests[0].name');
    expect(fieldOf(plan({ requests: [entry(0, { headers: { 'x-a': 'a\r\nb' } })] }))).toBe('request.requests[0].headers.x-a');
    expect(fieldOf(plan({ requests: [entry(0, { file: '/home/me/mix.json' })] }))).toBe('request.requests[0]');
    expect(fieldOf(plan({ requests: [] }))).toBe('request.requests');
    expect(fieldOf(plan({ requests: Array.from({ length: MAX_MIX_REQUESTS + 1 }, (_, i) => entry(i)) }))).toBe('request.requests');
    const half = 'x'.repeat(MAX_FLEET_MIX_CHARS / 2);
    expect(fieldOf(plan({ requests: [entry(0, { body: half }), entry(1, { body: half })] }))).toBe('request.requests');
    expect(fieldOf(plan({ requests: [entry(0, { body: half.slice(100) }), entry(1, { body: half.slice(100) })] }))).toBeNull();
    expect(fieldOf(plan({ ca_pem: `-----BEGIN CERTIFICATE-----\n${'A'.repeat(MAX_FLEET_CA_PEM_CHARS)}` }))).toBe('request.ca_pem');
    expect(fieldOf(plan({ ca_pem: 'not a certificate' }))).toBe('request.ca_pem');
    expect(fieldOf(plan({ http: '3' }))).toBe('request.http');
  });
});
