import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROMQL_TEXTS, parsePromQueries, parsePromQuery, prometheusApiUrl, readPrometheusStep, SelectorError } from '../src/index.ts';

describe('name=PromQL queries', () => {
  it('reads the name, the expression and how its values read', () => {
    expect(parsePromQuery('cpu=sum(rate(process_cpu_seconds_total{job="search"}[15s]))')).toEqual({ alias: 'cpu', expr: 'sum(rate(process_cpu_seconds_total{job="search"}[15s]))', fn: 'rate', counter: false, source: 'cpu=sum(rate(process_cpu_seconds_total{job="search"}[15s]))' });
    // rate(…) without a range is a counter Kneeboard differentiates itself; the expression sent is its inside.
    expect(parsePromQuery('cpu=rate(sum(process_cpu_seconds_total{job="a"}))')).toMatchObject({ expr: 'sum(process_cpu_seconds_total{job="a"})', fn: 'rate', counter: true });
    expect(parsePromQuery('cpu=rate(x{a="[b]"})')).toMatchObject({ expr: 'x{a="[b]"}', counter: true });
    expect(parsePromQuery('cpu=rate(x[1m])')).toMatchObject({ expr: 'rate(x[1m])', counter: false });
    expect(parsePromQuery('cpu=rate(x[1m]) * 2')).toMatchObject({ counter: false });
    expect(parsePromQuery('mem=sum(container_memory_working_set_bytes)')).toMatchObject({ fn: 'max', counter: false });
    expect(parsePromQuery('conns=sum(nginx_connections_active)')).toMatchObject({ fn: 'mean' });
    expect(parsePromQuery(' io = deriv(x[1m]) ')).toMatchObject({ alias: 'io', expr: 'deriv(x[1m])', fn: 'rate' });
  });

  it('defaults to cpu and mem; a given query of the same name replaces a default', () => {
    expect(parsePromQueries([]).map((q) => q.source)).toEqual([...DEFAULT_PROMQL_TEXTS]);
    const q = parsePromQueries(['cpu=rate(process_cpu_seconds_total{job="x"})', 'rps=sum(rate(http_requests_total[5s]))']);
    expect(q.map((x) => x.alias)).toEqual(['mem', 'cpu', 'rps']);
  });

  it('refuses what cannot be a query, naming it', () => {
    const bad: Array<[string, RegExp]> = [
      ['cpu', /expected name=PromQL/],
      ['=x', /expected name=PromQL/],
      ['c-p-u=x', /expected name=PromQL/],
      ['cpu=', /empty/],
      ['cpu=sum(rate(x[1m])', /unclosed "\("/],
      ['cpu=sum(x))', /unbalanced "\)"/],
      ['cpu=x{a="b}', /unterminated string/],
      ['cpu=a\nb', /control character/],
      [`cpu=${'x'.repeat(2001)}`, /longer than 2000/],
    ];
    for (const [text, message] of bad) expect(() => parsePromQuery(text), text).toThrow(message);
    expect(() => parsePromQueries(['a=x', 'a=y'])).toThrow(SelectorError);
  });

  it('builds API URLs under a base with or without a path prefix', () => {
    expect(prometheusApiUrl('http://prom:9090/', 'query', { query: 'up{a="b"}' })).toBe('http://prom:9090/api/v1/query?query=up%7Ba%3D%22b%22%7D');
    expect(prometheusApiUrl('http://h/prometheus', 'query_range', { step: '1' })).toBe('http://h/prometheus/api/v1/query_range?step=1');
  });
});

// A Prometheus-shaped server answering fixed bodies, for the shapes a real one gives rarely (a
// counter reset, a missing second); the real Prometheus is tested in apps/agent's accuracy tests.
let server: Server;
let base: string;
let answer: (q: URLSearchParams) => [number, unknown] = () => [200, {}];
beforeAll(async () => {
  server = createServer((req, res) => {
    const [status, body] = answer(new URL(req.url!, 'http://x').searchParams);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const T = 1_800_000_000; // epoch seconds
const matrix = (values: Array<[number, number]>) => ({ status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values: values.map(([t, v]) => [t, String(v)]) }] } });

describe('readPrometheusStep', () => {
  const step = { startedAt: T * 1000, measureFrom: (T + 1) * 1000, endedAt: (T + 6) * 1000 };

  it('a counter: per-second increases from the second before the step, a reset counted from 0 and named, a missing second a gap', async () => {
    answer = (q) => {
      expect(q.get('start')).toBe(String(T - 1)); // the second before, for the first increase
      expect(q.get('step')).toBe('1');
      return [200, matrix([[T - 1, 10], [T, 10.5], [T + 1, 11], [T + 2, 11.5], [T + 3, 0.25], [T + 5, 1.25], [T + 6, 1.75]])];
    };
    const got = await readPrometheusStep(base, parsePromQueries(['cpu=rate(x)']).filter((q) => q.alias === 'cpu'), step);
    expect(got.points.map((p) => [p.second - T, p.value])).toEqual([[0, 0.5], [1, 0.5], [2, 0.5], [3, 0.25], [6, 0.5]]);
    expect(got.notes).toEqual(['cpu: counter reset at 08:00:03 (counted as a restart from 0)', 'cpu: no samples between 08:00:03 and 08:00:06']);
  });

  it('an error answer, an empty result and an unreachable server are the step’s gaps, named with the reason', async () => {
    const [mem] = parsePromQueries([]).filter((q) => q.alias === 'mem');
    answer = () => [422, { status: 'error', errorType: 'execution', error: 'many-to-many matching not allowed' }];
    expect((await readPrometheusStep(base, [mem!], step)).notes).toEqual(['mem: no samples between 08:00:01 and 08:00:06 (Prometheus execution: many-to-many matching not allowed)']);
    answer = () => [200, { status: 'success', data: { resultType: 'matrix', result: [] } }];
    expect((await readPrometheusStep(base, [mem!], step)).notes).toEqual(['mem: no samples between 08:00:01 and 08:00:06 (Prometheus returned no series)']);
    answer = () => [503, 'down'];
    expect((await readPrometheusStep(base, [mem!], step)).notes).toEqual(['mem: no samples between 08:00:01 and 08:00:06 (HTTP 503)']);
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const dead = await readPrometheusStep(`http://127.0.0.1:${closed}`, [mem!], step);
    expect(dead).toEqual({ points: [], notes: ['mem: no samples between 08:00:01 and 08:00:06 (ECONNREFUSED)'] });
  });

  it('several series of a gauge are summed per second', async () => {
    answer = () => [200, { status: 'success', data: { resultType: 'matrix', result: [1, 2].map((k) => ({ metric: { pod: String(k) }, values: [[T + 1, String(k * 100)], [T + 2, String(k * 200)]] })) } }];
    const got = await readPrometheusStep(base, parsePromQueries(['mem=sum(x)']).filter((q) => q.alias === 'mem'), { ...step, endedAt: (T + 2) * 1000 });
    expect(got.points.map((p) => [p.second - T, p.value, p.fn])).toEqual([[1, 300, 'max'], [2, 600, 'max']]);
    expect(got.notes).toEqual([]);
  });
});
