import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, refuseCrossSiteWrite } from './security-headers.ts';

const h = (o: Record<string, string>) => new Headers(o);

describe('contentSecurityPolicy', () => {
  it('allows scripts by nonce only, no plugins, no framing, no base rewriting', () => {
    const csp = contentSecurityPolicy('abc123');
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    for (const d of ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "default-src 'self'"]) expect(csp).toContain(d);
  });

  it("adds eval only in dev mode (Next's hot reload)", () => {
    expect(contentSecurityPolicy('n', true)).toMatch(/script-src[^;]*'unsafe-eval'/);
  });
});

describe('refuseCrossSiteWrite', () => {
  it('lets reads through whatever their origin', () => {
    expect(refuseCrossSiteWrite('GET', h({ origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }))).toBeNull();
  });

  it('refuses a write from another site, by Sec-Fetch-Site or by Origin', () => {
    expect(refuseCrossSiteWrite('POST', h({ 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }))).toMatch(/cross-site/);
    expect(refuseCrossSiteWrite('POST', h({ origin: 'http://evil.example', host: '127.0.0.1:3000', 'content-type': 'application/json' }))).toMatch(/evil/);
    expect(refuseCrossSiteWrite('PATCH', h({ origin: 'null', host: '127.0.0.1:3000' }))).toMatch(/null/);
  });

  it('refuses a form or text/plain body even without an Origin', () => {
    expect(refuseCrossSiteWrite('POST', h({ 'content-type': 'text/plain' }))).toMatch(/application\/json/);
    expect(refuseCrossSiteWrite('POST', h({ 'content-type': 'application/x-www-form-urlencoded' }))).toMatch(/application\/json/);
  });

  it("lets the dashboard's own JSON writes through", () => {
    expect(refuseCrossSiteWrite('PATCH', h({ origin: 'http://127.0.0.1:3000', host: '127.0.0.1:3000', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }))).toBeNull();
    expect(refuseCrossSiteWrite('POST', h({ origin: 'https://kb.example.com', 'x-forwarded-host': 'kb.example.com', host: 'web:3000', 'content-type': 'application/json' }))).toBeNull();
  });
});
