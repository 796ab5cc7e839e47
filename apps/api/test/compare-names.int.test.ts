import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointHeadChange } from '@kneeboard/analysis/compare';
import { queryLevelSamples, queryNameLevelSamples } from '@kneeboard/clickhouse';
import { ApiError, CompareResponse, endpointPath, ENDPOINTS, RunDetail, type EventBatch } from '@kneeboard/contracts';
import { createRun, postJson, prng, startTestApi, type TestApi } from './helpers.ts';

/**
 * A release that fixes checkout but slows search: two runs of one mix of three endpoints, stored
 * through the normal ingest with names. Each (name, level) draws the same latencies in both runs,
 * scaled per release — so cart is unchanged to the bit, checkout is exactly 40% faster and search
 * exactly 50% slower, and the verdicts cannot depend on the draw.
 */
const NAMES = ['search', 'cart', 'checkout'] as const;
type Name = (typeof NAMES)[number];
const SERVICE_MS: Record<Name, number> = { search: 4, cart: 12, checkout: 40 };
const SCALE: Record<'base' | 'head', Record<Name, number>> = { base: { search: 1, cart: 1, checkout: 1 }, head: { search: 1.5, cart: 1, checkout: 0.6 } };
const LEVELS = [1, 2, 4];
const WINDOW_MS = 6_000;
const PER_LEVEL = 6_000;
const T0 = Date.UTC(2026, 10, 1, 12);

function levelBatch(side: 'base' | 'head', level: number, i: number, from: number): EventBatch & { name: string[] } {
  const draws = Object.fromEntries(NAMES.map((n, j) => [n, prng(1000 * i + j + 1)])) as Record<Name, () => number>;
  const rows = Array.from({ length: PER_LEVEL }, (_, k) => {
    const name = NAMES[k % NAMES.length]!;
    // Drawn on a 10 µs grid, so the scaled values are whole µs too and storage (integer µs) keeps them as sent.
    const drawn = Math.round(SERVICE_MS[name] * (name === 'checkout' ? level : 1) * Math.exp((draws[name]() - 0.5) * 1.2) * 100) / 100;
    const latency = drawn * SCALE[side][name];
    return { name, ts: from + ((k + 0.5) * WINDOW_MS) / PER_LEVEL, latency };
  });
  return {
    batch_id: `${side}-${level}`,
    agent_id: 'mix-agent',
    level: rows.map(() => level),
    ts_ms: rows.map((r) => r.ts),
    latency_ms: rows.map((r) => r.latency),
    compute_ms: rows.map(() => null),
    queue_ms: rows.map(() => null),
    status: rows.map(() => 200),
    name: rows.map((r) => r.name),
  };
}

async function storeRun(api: TestApi, side: 'base' | 'head', withNames = true): Promise<string> {
  const id = await createRun(api.url, { service: 'shop', release: side === 'base' ? 'v1' : 'v2' });
  for (const [i, level] of LEVELS.entries()) {
    const from = T0 + i * 10_000 + 250.5;
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id })}`, { level, started_at: from, measure_from: from, ended_at: from + WINDOW_MS })).status).toBe(200);
    const { name, ...batch } = levelBatch(side, level, i, from);
    const res = await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id })}`, withNames ? { ...batch, name } : batch);
    expect(res.body).toEqual({ accepted: PER_LEVEL, duplicate: false });
  }
  return id;
}

describe('compare per request name (embedded)', () => {
  let api: TestApi;
  let base: string;
  let head: string;
  const get = async (path: string, query: Record<string, string>) => {
    const res = await fetch(`${api.url}/api/v1/${path}?${new URLSearchParams({ base, head, ...query })}`);
    return { status: res.status, text: await res.text() };
  };
  beforeAll(async () => {
    api = await startTestApi({ mode: 'embedded' });
    base = await storeRun(api, 'base');
    head = await storeRun(api, 'head');
  }, 120_000);
  afterAll(async () => api?.close());

  it('says per endpoint which one got faster and which slower, in the JSON and the Markdown', async () => {
    const res = await get('compare', {});
    expect(res.status).toBe(200);
    const report = CompareResponse.parse(JSON.parse(res.text));
    expect(report.name).toBeUndefined();
    // Every name is shared, equally busy: by name.
    expect(report.endpoints?.names.map((n) => [n.name, n.requests])).toEqual([
      ['cart', 2 * LEVELS.length * (PER_LEVEL / 3)],
      ['checkout', 2 * LEVELS.length * (PER_LEVEL / 3)],
      ['search', 2 * LEVELS.length * (PER_LEVEL / 3)],
    ]);
    expect(report.endpoints?.omitted).toBe(0);
    const [cart, checkout, search] = report.endpoints!.names.map((n) => n.heads[0]!);
    expect(cart!.verdict).toBe('no significant change');
    expect(cart!.sentence).toBe('cart: no significant change');
    expect(checkout!.verdict).toBe('improvement');
    expect(checkout!.change?.metric).toBe('p99_ms');
    expect(checkout!.change?.change).toBeCloseTo(-0.4, 9);
    expect(checkout!.sentence).toMatch(/^checkout: faster \(−40% p99 at [124]\)$/);
    expect(search!.verdict).toBe('regression');
    expect(search!.change?.change).toBeCloseTo(0.5, 9);
    expect(search!.sentence).toMatch(/^search: slower \(\+50% p99 at [124]\)$/);

    const md = await get('compare.md', {});
    expect(md.status).toBe(200);
    expect(md.text).toContain(`**Per endpoint:** cart: no significant change; ${checkout!.sentence}; ${search!.sentence}`);
  });

  it('gives each endpoint in the summary exactly what compare?name= answers for it, as the summary reads them all at once', async () => {
    const report = CompareResponse.parse(JSON.parse((await get('compare', {})).text));
    expect(report.endpoints?.names.map((n) => n.name)).toEqual(['cart', 'checkout', 'search']);
    for (const entry of report.endpoints!.names) {
      const own = CompareResponse.parse(JSON.parse((await get('compare', { name: entry.name })).text));
      const h = own.heads[0]!;
      // The same verdict, the same headline figure and the very same interval (the bootstrap saw the same samples and seed).
      expect(entry.heads).toEqual([endpointHeadChange(entry.name, h.overall.verdict, h.levels)]);
    }
    // The summary's samples (every name in one statement) are each name's own raw rows: the same
    // buckets and the same successful latencies as the single-name read, in ascending order.
    const grouped = await queryNameLevelSamples(api.db, base, [...NAMES, 'absent']);
    expect(grouped.get('absent')).toEqual([]);
    for (const name of NAMES) {
      const alone = await queryLevelSamples(api.db, base, undefined, name);
      expect(grouped.get(name)!.map((l) => l.level)).toEqual(LEVELS);
      expect(grouped.get(name)!.map((l) => l.per_second_ok)).toEqual(alone.map((l) => l.per_second_ok));
      expect(grouped.get(name)!.map((l) => l.latencies)).toEqual(alone.map((l) => [...l.latencies].sort((a, b) => a - b)));
      expect(grouped.get(name)!.every((l) => l.latencies.length === PER_LEVEL / NAMES.length)).toBe(true);
    }
  });

  it('samples a busy name the same whether it is read alone or with the others', async () => {
    // One level with more successful requests of `busy` than a sample holds (20,000): the pick must
    // not depend on which other names the statement reads.
    const id = await createRun(api.url, { service: 'shop', release: 'v3' });
    const from = T0 + 100_000.5;
    expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postStep, { id })}`, { level: 1, started_at: from, measure_from: from, ended_at: from + WINDOW_MS })).status).toBe(200);
    const n = 22_000;
    const draw = prng(77);
    const names = Array.from({ length: n }, (_, k) => (k % 11 === 10 ? 'quiet' : 'busy'));
    const batch = {
      batch_id: 'busy-1',
      agent_id: 'mix-agent',
      level: names.map(() => 1),
      ts_ms: names.map((_, k) => from + ((k + 0.5) * WINDOW_MS) / n),
      latency_ms: names.map(() => Math.round(draw() * 5_000) / 100),
      compute_ms: names.map(() => null),
      queue_ms: names.map(() => null),
      status: names.map(() => 200),
      name: names,
    };
    // In several batches (several parts, read by several threads): the order rows reach the sample varies.
    const cut = (k: number) => Object.fromEntries(Object.entries(batch).map(([key, v]) => [key, Array.isArray(v) ? v.slice(k * 2_000, (k + 1) * 2_000) : `${v}-${k}`]));
    for (let k = 0; k < n / 2_000; k++) expect((await postJson(`${api.url}${endpointPath(ENDPOINTS.postEvents, { id })}`, cut(k))).body).toEqual({ accepted: 2_000, duplicate: false });
    const alone = (await queryNameLevelSamples(api.db, id, ['busy'])).get('busy')!;
    const together = (await queryNameLevelSamples(api.db, id, ['quiet', 'busy'])).get('busy')!;
    expect(alone[0]!.latencies).toHaveLength(20_000);
    expect(together).toEqual(alone);
    // Ascending, and every value one of busy's own.
    const own = new Set(batch.latency_ms.filter((_, k) => names[k] === 'busy'));
    expect(alone[0]!.latencies.every((v, i, a) => own.has(v) && (i === 0 || a[i - 1]! <= v))).toBe(true);
  });

  it('compares one endpoint\'s curves with name=, exactly that name\'s curve on each side', async () => {
    const res = await get('compare', { name: 'checkout' });
    expect(res.status).toBe(200);
    const report = CompareResponse.parse(JSON.parse(res.text));
    expect(report.name).toBe('checkout');
    expect(report.endpoints).toBeUndefined();
    const h = report.heads[0]!;
    expect(h.overall.verdict).toBe('improvement');
    const own = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${base}?name=checkout`)).json());
    expect(h.levels.map((l) => [l.level, l.p99_ms.base])).toEqual(own.curve.map((p) => [p.level, p.p99_ms]));
    for (const l of h.levels) expect(l.p99_ms.change).toBeCloseTo(-0.4, 9);
    const search = CompareResponse.parse(JSON.parse((await get('compare', { name: 'search' })).text));
    expect(search.heads[0]!.overall.verdict).toBe('regression');

    const md = await get('compare.md', { name: 'checkout', web: 'https://kb.example' });
    expect(md.text).toContain('Endpoint **checkout** only.');
    expect(md.text).toContain('name=checkout');
    expect(md.text).not.toContain('**Per endpoint:**');
    const svg = await get('compare.svg', { name: 'checkout' });
    expect(svg.status).toBe(200);
    expect(svg.text).toContain('<svg');
  });

  it('answers a name a side lacks with a 404 naming it, and an empty or too long one with a 400', async () => {
    const missing = await get('compare', { name: 'login' });
    expect(missing.status).toBe(404);
    const err = ApiError.parse(JSON.parse(missing.text));
    expect(err.field).toBe('name');
    expect(err.message).toContain('"login"');
    for (const bad of ['', 'x'.repeat(201)]) {
      const res = await get('compare', { name: bad });
      expect(res.status).toBe(400);
      expect(ApiError.parse(JSON.parse(res.text)).field).toContain('name');
    }
  });

  it('leaves runs without names exactly as before: no endpoints, no name', async () => {
    const plainBase = await storeRun(api, 'base', false);
    const plainHead = await storeRun(api, 'head', false);
    const res = await fetch(`${api.url}/api/v1/compare?${new URLSearchParams({ base: plainBase, head: plainHead })}`);
    expect(Object.keys((await res.json()) as object).sort()).toEqual(['base', 'base_runs', 'heads', 'settings']);
    // One side without names: no summary either (a name must be on every run to be compared).
    const mixed = await fetch(`${api.url}/api/v1/compare?${new URLSearchParams({ base, head: plainHead })}`);
    expect(Object.keys((await mixed.json()) as object).sort()).toEqual(['base', 'base_runs', 'heads', 'settings']);
  });
});
