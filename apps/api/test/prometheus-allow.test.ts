import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMETHEUS_ALLOW, PrometheusAllowList, prometheusAllowed } from '../src/services/prometheus-allow.ts';
import { parseEnv } from '../src/env.ts';

// The rule that keeps POST /runs/{id}/server-metrics/prometheus from being an open proxy (issue 28).
describe('KNEEBOARD_PROMETHEUS_ALLOW', () => {
  it('by default allows loopback and this host only', () => {
    const allow = [...DEFAULT_PROMETHEUS_ALLOW];
    for (const url of ['http://127.0.0.1:9090', 'http://127.9.8.7:1', 'http://localhost:9090/prom', 'http://[::1]:9090', 'https://box-1:9090']) expect(prometheusAllowed(url, allow, 'box-1'), url).toBe(true);
    for (const url of ['http://10.0.0.5:9090', 'http://prom.internal:9090', 'http://169.254.169.254/', 'http://127.0.0.1.evil.example/', 'http://box-10:9090', 'not a url']) expect(prometheusAllowed(url, allow, 'box-1'), url).toBe(false);
  });

  it('entries name hosts, with or without a port; * allows any', () => {
    const allow = PrometheusAllowList.parse('prom.lan:9090, Thanos.lan');
    expect(allow).toEqual(['prom.lan:9090', 'thanos.lan']);
    expect(prometheusAllowed('http://prom.lan:9090', allow)).toBe(true);
    expect(prometheusAllowed('http://prom.lan:9091', allow)).toBe(false);
    expect(prometheusAllowed('https://thanos.lan/api', allow)).toBe(true);
    expect(prometheusAllowed('http://thanos.lan:10902', allow)).toBe(true);
    // Set, the list replaces the default: loopback only when named.
    expect(prometheusAllowed('http://127.0.0.1:9090', allow)).toBe(false);
    expect(prometheusAllowed('http://anything:1', PrometheusAllowList.parse('*'))).toBe(true);
    expect(PrometheusAllowList.parse(undefined)).toEqual(['loopback', 'self']);
  });

  it('a bad entry fails start-up naming the variable', () => {
    expect(parseEnv({ KNEEBOARD_PROMETHEUS_ALLOW: 'loopback,prom.lan:9090' }).prometheusAllow).toEqual(['loopback', 'prom.lan:9090']);
    expect(parseEnv({}).prometheusAllow).toEqual(['loopback', 'self']);
    expect(() => parseEnv({ KNEEBOARD_PROMETHEUS_ALLOW: 'http://prom:9090' })).toThrow(/KNEEBOARD_PROMETHEUS_ALLOW\.0: must be host, host:port, loopback, self or \*/);
  });
});
