import { describe, expect, it } from 'vitest';
import { parseEnv } from '../src/env.ts';
import { DEFAULT_LIMITS } from '../src/plugins/limits.ts';

describe('parseEnv', () => {
  it('allows no browser origin by default', () => {
    expect(parseEnv({}).corsOrigins).toEqual([]);
  });

  it('reads KNEEBOARD_CORS_ORIGINS as a list of origins', () => {
    expect(parseEnv({ KNEEBOARD_CORS_ORIGINS: ' https://a.example.com, http://b.example:8080 ,' }).corsOrigins).toEqual(['https://a.example.com', 'http://b.example:8080']);
  });

  it('refuses an origin with a path, a wildcard or another scheme, naming the variable', () => {
    for (const bad of ['https://a.example.com/app', '*', 'javascript:alert(1)']) {
      expect(() => parseEnv({ KNEEBOARD_CORS_ORIGINS: bad })).toThrow(/KNEEBOARD_CORS_ORIGINS/);
    }
  });

  it('has documented defaults for every limit and for retention', () => {
    const c = parseEnv({});
    expect(c.limits).toEqual(DEFAULT_LIMITS);
    expect(c.retention).toEqual({ defaultDays: 90, services: [], sweepEveryMs: 3_600_000 });
  });

  it('reads limits and per-service retention (0: forever), naming a bad variable', () => {
    const c = parseEnv({ KNEEBOARD_BODY_LIMIT_BYTES: '8192', KNEEBOARD_REQUEST_TIMEOUT_S: '5', KNEEBOARD_COMPARE_CONCURRENCY: '3', KNEEBOARD_RETENTION_DAYS: '0', KNEEBOARD_RETENTION_SERVICES: 'checkout=30, search=0' });
    expect([c.limits.bodyBytes, c.limits.requestTimeoutMs, c.limits.compareConcurrency]).toEqual([8192, 5000, 3]);
    expect(c.retention.defaultDays).toBeNull();
    expect(c.retention.services).toEqual([{ service: 'checkout', days: 30 }, { service: 'search', days: null }]);
    expect(() => parseEnv({ KNEEBOARD_RETENTION_SERVICES: 'checkout' })).toThrow(/KNEEBOARD_RETENTION_SERVICES/);
    expect(() => parseEnv({ KNEEBOARD_COMPARE_CONCURRENCY: '0' })).toThrow(/KNEEBOARD_COMPARE_CONCURRENCY/);
  });
});
