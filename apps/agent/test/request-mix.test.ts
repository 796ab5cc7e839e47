import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toSweepInput } from '../src/cli/sweep-flags.ts';
import { encodeRequestsFile } from '../src/native/native-request.ts';
import { loadRequestMix, mixOriginProblem, mixTags } from '../src/mix/request-mix.ts';
import { weightedPick } from '../src/mix/weighted-pick.ts';
import { chiSquare, CHI2_CRITICAL_1E6 } from './support/chi-square.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-mix-test-'));
let n = 0;
const file = (content: unknown, ext = 'json'): string => {
  const path = join(dir, `mix-${n++}.${ext}`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const errorOf = (path: string): string => {
  try {
    loadRequestMix(path);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the mix to be refused');
};

describe('--requests mix.json', () => {
  it('reads names, methods, paths, headers, bodies and weights', () => {
    const mix = loadRequestMix(
      file({
        requests: [
          { name: 'search', path: '/search?q=1', weight: 5 },
          { name: 'cart', method: 'put', url: 'http://127.0.0.1:9/cart/1', headers: { 'X-Cart': 'a' }, body: { items: [1] }, weight: 3 },
          { name: 'search', path: '/search?q=2', body: 'raw' },
        ],
      }),
    );
    expect(mix.format).toBe('json');
    expect(mix.names).toEqual(['search', 'cart']);
    expect([...mix.nameOf]).toEqual([0, 1, 0]);
    expect(mix.requests.map((r) => [r.method, r.path, r.weight, r.origin])).toEqual([
      ['GET', '/search?q=1', 5, null],
      ['PUT', '/cart/1', 3, 'http://127.0.0.1:9'],
      ['POST', '/search?q=2', 1, null],
    ]);
    expect(mix.requests[1]!.headers).toEqual({ 'x-cart': 'a', 'content-type': 'application/json' });
    expect(mix.requests[1]!.body).toBe('{"items":[1]}');
    expect(mix.requests[2]!.body).toBe('raw');
    expect(mixTags(mix)).toEqual({ requests_file: expect.stringMatching(/^mix-\d+\.json$/), requests: 'search=66.7%, cart=33.3%', requests_count: '3' });
    // A url on another origin than the target's is refused, naming the entry.
    expect(mixOriginProblem(mix, new URL('http://127.0.0.1:9/'))).toBeNull();
    expect(mixOriginProblem(mix, new URL('http://127.0.0.1:10/'))).toMatch(/^entry 2 \("cart"\): url: http:\/\/127\.0\.0\.1:9 is not the target's origin/);
  });

  it('refuses a bad file with a message naming the entry and the field', () => {
    expect(errorOf(file([{ name: 'a', path: '/a' }, { name: 'b', path: '/b', weight: 0 }]))).toMatch(/entry 2 \("b"\): weight: must be more than 0/);
    expect(errorOf(file([{ name: 'a' }]))).toMatch(/entry 1 \("a"\): path: give one of url or path/);
    expect(errorOf(file([{ name: 'a', path: '/a', url: 'http://x/a' }]))).toMatch(/entry 1 \("a"\): path: give one of url or path/);
    expect(errorOf(file([{ name: 'a', path: 'a' }]))).toMatch(/entry 1 \("a"\): path: must start with \//);
    expect(errorOf(file([{ path: '/a' }]))).toMatch(/entry 1: name: /);
    expect(errorOf(file([{ name: 'x'.repeat(201), path: '/a' }]))).toMatch(/entry 1: name: must be at most 200 characters/);
    expect(errorOf(file([{ name: 'a\u0007b', path: '/a' }]))).toMatch(/entry 1 .*name: contains the control character U\+0007/);
    expect(errorOf(file([{ name: 'a', path: '/a', headers: { 'x-a': 'b\r\nc' } }]))).toMatch(/entry 1 \("a"\): headers\.x-a: a header value must not contain a line break/);
    expect(errorOf(file([{ name: 'a', path: '/a', method: 'GE T' }]))).toMatch(/entry 1 \("a"\): method: must be an HTTP method/);
    expect(errorOf(file([{ name: 'a', path: '/a', wieght: 2 }]))).toMatch(/entry 1 \("a"\): Unrecognized key: "wieght"/);
    expect(errorOf(file([]))).toMatch(/needs at least one request/);
    expect(errorOf(file({ requests: 'x' }))).toMatch(/must be a list of requests/);
    expect(errorOf(file('{ not json'))).toMatch(/is not JSON/);
    expect(errorOf(join(dir, 'missing.json'))).toMatch(/cannot read/);
    // Every message names the file.
    const bad = file([{ name: 'a', path: '/a', weight: -1 }]);
    expect(errorOf(bad)).toContain(bad);
  });

  it('cannot be combined with the single request flags; goes with --agents', () => {
    const mix = loadRequestMix(file([{ name: 'a', path: '/a' }]));
    const base = { target: 'http://127.0.0.1:9/', service: 's', release: 'r', requests: mix };
    expect(toSweepInput({ ...base, method: 'POST' })).toEqual({ error: expect.stringMatching(/^--requests and --method: /) });
    expect(toSweepInput({ ...base, body: 'x' })).toEqual({ error: expect.stringMatching(/^--requests and --body: /) });
    // A fleet drives the mix too: the coordinator hands the parsed requests to its agents in the plan.
    const fleet = toSweepInput({ ...base, agents: 2 });
    expect('input' in fleet && fleet.input.requests).toBe(mix);
    const ok = toSweepInput({ ...base, header: { 'x-a': '1' } });
    expect('input' in ok && ok.input.requests).toBe(mix);
  });
});

describe('--requests file.har', () => {
  it("takes the page's requests, weighted by count, named method + path", () => {
    const mix = loadRequestMix(new URL('./fixtures/mix-shop.har', import.meta.url).pathname);
    expect(mix.format).toBe('har');
    expect(mix.skipped).toBe(2); // the CDN and the analytics beacon
    expect(mix.names).toEqual(['GET /fast', 'GET /medium', 'POST /slow']);
    expect(mix.requests.map((r) => [r.name, r.path, r.weight])).toEqual([
      ['GET /fast', '/fast?q=shoes', 3],
      ['GET /fast', '/fast?q=hats', 2],
      ['GET /medium', '/medium', 3],
      ['POST /slow', '/slow', 2],
    ]);
    const slow = mix.requests[3]!;
    expect(slow.body).toBe('{"cart":[1,2]}');
    expect(slow.headers).toEqual({ accept: 'application/json', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', 'content-type': 'application/json' });
    // A HAR is replayed on the sweep's target whatever its page's origin was.
    expect(mixOriginProblem(mix, new URL('http://127.0.0.1:9/'))).toBeNull();
  });

  it('refuses a HAR entry that is not a request, naming it', () => {
    const har = { log: { entries: [{ request: { method: 'GET', url: 'http://a/x', headers: [] } }, { request: { method: 'GET', url: 'notaurl' } }] } };
    expect(errorOf(file(har, 'har'))).toMatch(/entry 2: request\.url: must be an http:\/\/ or https:\/\/ URL/);
    expect(errorOf(file({ log: { entries: [] } }, 'har'))).toMatch(/log\.entries: holds no request/);
  });
});

describe('weighted picks', () => {
  it('follow the weights (χ² at 1e-6 on a fixed seed) and differ from an even split', () => {
    const weights = [5, 3, 2];
    const pick = weightedPick(weights, 42);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[pick()]! += 1;
    expect(chiSquare(counts, weights)).toBeLessThan(CHI2_CRITICAL_1E6[2]!);
    expect(chiSquare(counts, [1, 1, 1])).toBeGreaterThan(CHI2_CRITICAL_1E6[2]!);
    expect(weightedPick([7], 1)()).toBe(0);
  });
});

describe("the engine's requests file", () => {
  it('writes each request with its weight, headers and body bytes', () => {
    const buf = encodeRequestsFile(
      [
        { path: '/a?x=1', method: 'GET', headers: { 'user-agent': 'kb' }, body: undefined, timeoutMs: 1 },
        { path: '/b', method: 'POST', headers: {}, body: 'he\nlo', timeoutMs: 1 },
      ],
      [2.5, 1],
    );
    expect(buf.toString()).toBe('kneeboard-requests 1\nR 2.5 GET /a?x=1\nH user-agent: kb\nR 1 POST /b\nB 5\nhe\nlo');
    expect(() => encodeRequestsFile([{ path: '/a b', method: 'GET', headers: {}, body: undefined, timeoutMs: 1 }], [1])).toThrow(/white space/);
  });
});
