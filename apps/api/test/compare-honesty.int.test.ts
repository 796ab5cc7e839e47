import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CompareResponse, type StepHealth } from '@kneeboard/contracts';
import { startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api.close());

const LEVELS = [1, 2, 4, 8, 16];
const REASON = 'Only 13.8 of 16.0 requests were on the wire on average.';
const limited: StepHealth = { target: 16, in_flight_mean: 13.8, late_sends: 0, missed_sends: 0, agent_cpu_cores: 0.98, event_loop_delay_p99_ms: 41, generator_limited: true, reason: REASON };

async function compareQs(qs: string): Promise<CompareResponse> {
  const res = await fetch(`${api.url}/api/v1/compare?${qs}`);
  expect(res.status).toBe(200);
  return CompareResponse.parse(await res.json());
}

describe('flags carried into the comparison', () => {
  let base: string;
  let head: string;
  beforeAll(async () => {
    base = await storeSyntheticRun(api.url, { seed: 1, release: 'v1.0.0', service: 'flags-svc', levels: LEVELS });
    // Head is 40% faster everywhere, but its agent was the limit at 16.
    head = await storeSyntheticRun(api.url, { seed: 2, release: 'v1.1.0', service: 'flags-svc', levels: LEVELS, qpsScale: 1.4, latencyScale: 0.7, health: { 16: limited } });
  });

  it('a generator-limited level gets "not comparable" with the agent’s reason, never a green improvement', async () => {
    const report = await compareQs(`base=${base}&head=${head}`);
    const at16 = report.heads[0]!.levels.find((l) => l.level === 16)!;
    expect(at16.flags).toEqual([{ side: 'head', run_id: head, reason: `the agent flagged concurrency 16 generator-limited: ${REASON}` }]);
    expect([at16.qps.verdict, at16.p50_ms.verdict, at16.p99_ms.verdict]).toEqual(['not comparable', 'not comparable', 'not comparable']);
    const at8 = report.heads[0]!.levels.find((l) => l.level === 8)!;
    expect(at8.flags).toEqual([]);
    expect(at8.qps.verdict).toBe('improvement');
  });

  it('Markdown marks the level and says why; the SVG draws it hollow with a "!"; the run CSV has a flag column', async () => {
    const md = await (await fetch(`${api.url}/api/v1/compare.md?base=${base}&head=${head}`)).text();
    const row16 = md.split('\n').find((line) => line.startsWith('| 16 |'))!;
    expect(row16).toContain('⚠️');
    expect(row16).toContain(`not comparable: head — the agent flagged concurrency 16 generator-limited: ${REASON}`);
    expect(row16).not.toContain('🟢');

    const svg = await (await fetch(`${api.url}/api/v1/compare.svg?base=${base}&head=${head}`)).text();
    expect(svg.match(/<g class="flagged">/g)?.length).toBe(3); // QPS, p50 and p99 of the head at 16
    expect(svg).toContain('the load generator was the limit there, not the service');

    const csv = (await (await fetch(`${api.url}/api/v1/runs/${head}/curve.csv`)).text()).trim().split('\n');
    expect(csv[0]).toMatch(/,flag$/);
    expect(csv.find((l) => l.startsWith('16,'))).toContain('generator-limited');
    expect(csv.find((l) => l.startsWith('8,'))).toMatch(/,$/);
    // Rounded to what the pages show: no float noise.
    expect(csv.slice(1).every((l) => l.split(',').every((v) => !/\.\d{3,}/.test(v)))).toBe(true);
  });
});

describe('run-to-run noise', () => {
  it('compares groups of repeats (base=ID,ID,ID), labels them ×3 and says the intervals include run-to-run noise', async () => {
    const runs = async (release: string, seeds: number[], qpsScale = 1) =>
      Promise.all(seeds.map((seed) => storeSyntheticRun(api.url, { seed, release, service: 'repeat-svc', levels: [1, 2, 4], seconds: 3, qpsScale })));
    const base = await runs('r1', [101, 102, 103]);
    const head = await runs('r2', [104, 105, 106]);
    const report = await compareQs(`base=${base.join(',')}&head=${head.join(',')}`);
    expect(report.base_runs.map((r) => r.id)).toEqual(base);
    const [h] = report.heads;
    expect(h!.runs.map((r) => r.id)).toEqual(head);
    expect(h!.noise.basis).toBe('repeats');
    expect(h!.noise.note).toMatch(/measured from the 3 base and 3 head runs themselves/);
    expect(h!.noise.method).toMatch(/^Intervals on the log of head ÷ base \(never below −100%\) from 3 base and 3 head runs: /);
    expect(h!.overall.summary).toMatch(/^r2 ×3 vs r1 ×3:/);
    expect(h!.overall.verdict).toBe('no significant change');

    // Later single-run comparisons of this service borrow the spread those repeats measured.
    const single = await compareQs(`base=${base[0]}&head=${head[0]}`);
    expect(single.heads[0]!.noise.basis).toBe('history');
    expect(single.heads[0]!.noise.run_to_run!.df).toBe(4);
  });

  it('a single pair on a service with no repeats says it cannot separate a change from run-to-run noise', async () => {
    const a = await storeSyntheticRun(api.url, { seed: 201, release: 'a', service: 'lonely-svc', levels: [1, 2] });
    const b = await storeSyntheticRun(api.url, { seed: 202, release: 'b', service: 'lonely-svc', levels: [1, 2] });
    const report = await compareQs(`base=${a}&head=${b}`);
    expect(report.heads[0]!.noise.basis).toBe('within-run only');
    expect(report.heads[0]!.overall.summary).toMatch(/Single runs: run-to-run noise not measured\.$/);
    const md = await (await fetch(`${api.url}/api/v1/compare.md?base=${a}&head=${b}`)).text();
    expect(md).toContain('cannot separate a change from a busier machine');
  });
});

describe('short steps', () => {
  it('a 0.5 s step gets a QPS interval and verdict, like a 30 s one', async () => {
    const a = await storeSyntheticRun(api.url, { seed: 301, release: 'short-a', service: 'short-svc', levels: [1, 2, 4], seconds: 0.5 });
    const b = await storeSyntheticRun(api.url, { seed: 302, release: 'short-b', service: 'short-svc', levels: [1, 2, 4], seconds: 0.5, qpsScale: 0.5, latencyScale: 2 });
    const report = await compareQs(`base=${a}&head=${b}`);
    for (const level of report.heads[0]!.levels) {
      // Ten 50 ms buckets. (The synthetic rows are evenly spaced, so an interval may have no width:
      // that is the data, not the printing.)
      expect(level.qps.ci_low).not.toBeNull();
      expect(level.qps.ci_low).toBeLessThanOrEqual(level.qps.ci_high!);
      expect(level.qps.verdict).toBe('regression');
    }
  });
});

describe('bad compare URLs answer 4xx naming the field', () => {
  it.each([
    ['base=not-a-uuid&head=00000000-0000-4000-8000-000000000000', 400, 'base'],
    ['base=00000000-0000-4000-8000-000000000000', 400, 'head'],
    ['base=00000000-0000-4000-8000-000000000000,00000000-0000-4000-8000-000000000000&head=00000000-0000-4000-8000-000000000001', 400, 'base'],
    ['base=00000000-0000-4000-8000-000000000000&head=00000000-0000-4000-8000-000000000001', 404, 'base'],
  ])('%s → %i', async (qs, status, field) => {
    const res = await fetch(`${api.url}/api/v1/compare?${qs}`);
    expect(res.status).toBe(status);
    expect(JSON.stringify(ApiError.parse(await res.json()))).toContain(field);
  });
});
