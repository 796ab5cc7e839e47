import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Capacity, CapacityProjection, RunAnalysis, RunDetail } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';
import { readEvents } from './sse.ts';

/**
 * A 4-worker server of 20 ms (the synthetic run's model): median max(20, c·5) ms with lognormal
 * spread, so p99 ≈ 1.79 × median — about 36 ms up to c = 4, 72 ms at 8. Twelve seconds per level
 * give every level at least 600 requests, enough for an interval on p99.
 */
const LEVELS = [1, 2, 4, 8, 16, 32];
const WithCapacity = RunAnalysis.extend({ capacity: Capacity });

let api: TestApi;
let runId: string;
beforeAll(async () => {
  api = await startTestApi();
  runId = await storeSyntheticRun(api.url, { seed: 26, release: 'v1', levels: LEVELS, workers: 4, serviceMs: 20, seconds: 12 });
});
afterAll(async () => api.close());

const analysis = (id: string, query: string) => fetch(`${api.url}/api/v1/runs/${id}/analysis?${query}`);

describe('GET /api/v1/runs/{id}/analysis?slo=', () => {
  it('answers capacity: the last level that holds, the first that breaks, from raw samples', async () => {
    const res = await analysis(runId, `slo=${encodeURIComponent('p99<=50ms')}`);
    expect(res.status).toBe(200);
    const body = WithCapacity.parse(await res.json());
    const capacity = body.capacity;
    expect(capacity.slos).toEqual(['p99<=50ms']);
    expect(capacity.samples).toBe('exact');
    expect(capacity.levels.map((l) => l.judgement)).toEqual(['holds', 'holds', 'holds', 'breaks', 'breaks', 'breaks']);
    expect(capacity.level).toBe(4);
    expect(capacity.bracket.holds?.level).toBe(4);
    expect(capacity.bracket.breaks?.level).toBe(8);
    const crossing = capacity.bracket.crossing?.level as number;
    expect(crossing).toBeGreaterThan(4);
    expect(crossing).toBeLessThan(8);
    for (const level of capacity.levels) {
      const check = level.checks[0]!;
      expect(check.basis).toBe('bootstrap');
      expect(check.low!).toBeLessThanOrEqual(check.high!);
    }
    expect(capacity.summary).toMatch(/^Within p99 ≤ 50 ms: \d+ QPS at concurrency 4; breaks at 8/);
    // The analysis itself is the one every reader gets without an SLO.
    const plain = await (await analysis(runId, '')).json();
    expect(plain).not.toHaveProperty('capacity');
    const { capacity: _, ...rest } = body;
    expect(rest).toEqual(plain);
  });

  it('takes the SLO repeated or comma-separated, and needs every clause to hold', async () => {
    const repeated = WithCapacity.parse(await (await analysis(runId, `slo=${encodeURIComponent('p99<=200ms')}&slo=${encodeURIComponent('p50<=30ms')}`)).json());
    const joined = WithCapacity.parse(await (await analysis(runId, `slo=${encodeURIComponent('p99<=200ms,p50<=30ms')}`)).json());
    expect(repeated.capacity).toEqual(joined.capacity);
    expect(joined.capacity.slos).toEqual(['p99<=200ms', 'p50<=30ms']);
    // p50 is ≈ 20 ms up to 4 and 40 ms at 8: the p50 clause breaks first.
    expect(joined.capacity.level).toBe(4);
    expect(joined.capacity.levels[3]!.checks.map((c) => c.judgement)).toEqual(['holds', 'breaks']);
  });

  it('refuses a bad SLO with a 400 naming the field and the clause', async () => {
    for (const [slo, clause] of [
      ['p98<=50ms', 'p98<=50ms'],
      ['p99<=-1ms', 'p99<=-1ms'],
      ['p99<=50', 'p99<=50'],
      [Array.from({ length: 20 }, (_, i) => `p99<=${i + 1}ms`).join(','), 'p99<=9ms'],
    ] as const) {
      const res = await analysis(runId, `slo=${encodeURIComponent(slo)}`);
      expect(res.status).toBe(400);
      const body = ApiError.parse(await res.json());
      expect(body.field).toBe('querystring.slo');
      expect(body.message).toContain(`"${clause}"`);
    }
  });

  it('never takes a generator-limited level as evidence that the SLO holds', async () => {
    const health = { target: 8, in_flight_mean: 3, late_sends: 0, missed_sends: 0, agent_cpu_cores: 1, event_loop_delay_p99_ms: 80, generator_limited: true, reason: 'agent CPU saturated' };
    const limited = await storeSyntheticRun(api.url, { seed: 27, release: 'v1', levels: [1, 2, 4, 8], workers: 8, serviceMs: 20, seconds: 12, health: { 8: health } });
    const capacity = WithCapacity.parse(await (await analysis(limited, `slo=${encodeURIComponent('p99<=50ms')}`)).json()).capacity;
    // Eight workers: p99 ≈ 36 ms at every level, so 8 would hold — but the agent was the limit there.
    expect(capacity.levels.map((l) => l.judgement)).toEqual(['holds', 'holds', 'holds', 'skipped']);
    expect(capacity.levels[3]!.checks[0]!.judgement).toBe('holds');
    expect(capacity.skipped_levels[0]?.level).toBe(8);
    expect(capacity.skipped_levels[0]?.reason).toMatch(/generator-limited: agent CPU saturated/);
    expect(capacity.level).toBe(4);
    expect(capacity.bracket.breaks).toBeNull();
  });
});

describe('GET /api/v1/runs/{id}/analysis?slo=…&target_qps=', () => {
  it('refuses the projection, with the analysis\' own reason, on a W×S server (a corner the USL does not follow)', async () => {
    const body = await (await analysis(runId, `slo=${encodeURIComponent('p99<=50ms')}&target_qps=1000&current_qps=100`)).json();
    const parsed = WithCapacity.extend({ capacity: Capacity.extend({ projection: CapacityProjection }) }).parse(body);
    expect(parsed.usl_trusted).toBe(false);
    expect(parsed.capacity.projection.refused).toBe(parsed.usl_untrusted_reason);
    expect(parsed.capacity.projection.refused).toMatch(/not trusted/);
    expect(parsed.capacity.projection.instances).toBeNull();
    expect(parsed.capacity.projection.assumption).toMatch(/independent/);
    // Without target_qps/current_qps no projection is added.
    const plain = (await (await analysis(runId, `slo=${encodeURIComponent('p99<=50ms')}`)).json()) as { capacity: object };
    expect(plain.capacity).toHaveProperty('level', 4);
    expect(plain.capacity).not.toHaveProperty('projection');
  });

  it('refuses a bad target_qps or current_qps, or one without slo=, with a 400 naming the field', async () => {
    const slo = `slo=${encodeURIComponent('p99<=50ms')}`;
    for (const [query, field] of [
      [`${slo}&target_qps=0`, 'querystring.target_qps'],
      [`${slo}&target_qps=-5`, 'querystring.target_qps'],
      [`${slo}&target_qps=lots`, 'querystring.target_qps'],
      [`${slo}&target_qps=Infinity`, 'querystring.target_qps'],
      [`${slo}&current_qps=0`, 'querystring.current_qps'],
      ['target_qps=1000', 'querystring.target_qps'],
      ['current_qps=10', 'querystring.current_qps'],
    ] as const) {
      const res = await analysis(runId, query);
      expect(res.status, query).toBe(400);
      expect(ApiError.parse(await res.json()).field, query).toBe(field);
    }
  });
});

describe('capacity in the live snapshot and the CSV', () => {
  it('carries capacity in the snapshot only when an SLO is asked', async () => {
    const read = async (query: string) => {
      const res = await fetch(`${api.url}/api/v1/runs/${runId}/live${query}`);
      expect(res.status).toBe(200);
      for await (const ev of readEvents(res)) if (ev.event === 'snapshot') return JSON.parse(ev.data) as unknown;
      throw new Error('no snapshot');
    };
    const withSlo = (await read(`?slo=${encodeURIComponent('p99<=50ms')}`)) as RunDetail & { capacity: unknown };
    expect(RunDetail.parse(withSlo).run.id).toBe(runId);
    expect(Capacity.parse(withSlo.capacity).level).toBe(4);
    expect(await read('')).not.toHaveProperty('capacity');
    const bad = await fetch(`${api.url}/api/v1/runs/${runId}/live?slo=p98`);
    expect(bad.status).toBe(400);
    expect(ApiError.parse(await bad.json()).field).toBe('querystring.slo');
  });

  it('adds each level’s judgement to the CSV when an SLO is given, and nothing otherwise', async () => {
    const plain = await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv`)).text();
    expect(plain.split('\n')[0]).not.toMatch(/capacity/);
    const csv = await (await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv?slo=${encodeURIComponent('p99<=50ms,errors<=1%')}`)).text();
    const [header, ...rows] = csv.trim().split('\n');
    const columns = header!.split(',');
    expect(columns.slice(-2)).toEqual(['capacity', 'capacity_slo']);
    const at = columns.indexOf('capacity');
    expect(rows.map((r) => r.split(',')[at])).toEqual(['holds', 'holds', 'holds', 'breaks', 'breaks', 'breaks']);
    expect(rows[0]!.split(',')[at + 1]).toBe('p99<=50ms errors<=1%');
    expect((await fetch(`${api.url}/api/v1/runs/${runId}/curve.csv?slo=nope`)).status).toBe(400);
  });
});
