import type { CompareResponse, MetricDelta } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { deltaCsv } from './delta-csv.ts';
import { testRun } from './test-runs.ts';

const d = (over: Partial<MetricDelta> = {}): MetricDelta => ({ base: 100, head: 131, change: 0.31, ci_low: 0.2876, ci_high: 0.33, verdict: 'improvement', ...over });
const none: MetricDelta = { base: 20, head: null, change: null, ci_low: null, ci_high: null, verdict: 'insufficient data' };

function report(headName: string): Pick<CompareResponse, 'heads' | 'base'> {
  const head = { ...testRun(2), name: headName };
  return {
    base: testRun(1),
    heads: [
      {
        run: head,
        runs: [head],
        noise: { base_runs: 1, head_runs: 1, basis: 'within-run only', run_to_run: null, note: '' },
        levels: [
          { level: 1, in_base: true, in_head: true, flags: [], qps: d(), p50_ms: d({ base: 0.25, head: 0.26, change: 0.04, ci_low: -0.01, ci_high: 0.08, verdict: 'no significant change' }), p99_ms: d() },
          { level: 32, in_base: false, in_head: true, flags: [{ side: 'head', run_id: head.id, reason: 'generator-limited, at 32' }], qps: none, p50_ms: none, p99_ms: none },
        ],
        overall: {} as CompareResponse['heads'][number]['overall'],
      },
    ],
  };
}

describe('deltaCsv', () => {
  it('writes one row per head and level: each metric as numbers, the change in percent, the verdict', () => {
    const lines = deltaCsv(report('after'), 'workers').trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'base_release,base_run,head_release,head_run,workers,only_in,flags,qps_base,qps_head,qps_change_pct,qps_ci_low_pct,qps_ci_high_pct,qps_verdict,p50_ms_base,p50_ms_head,p50_ms_change_pct,p50_ms_ci_low_pct,p50_ms_ci_high_pct,p50_ms_verdict,p99_ms_base,p99_ms_head,p99_ms_change_pct,p99_ms_ci_low_pct,p99_ms_ci_high_pct,p99_ms_verdict',
    );
    expect(lines).toHaveLength(3);
    const [, one, two] = lines.map((l) => l.split(','));
    expect(one!.slice(4, 13)).toEqual(['1', '', '', '100', '131', '31', '28.8', '33', 'improvement']);
    expect(one!.slice(13, 19)).toEqual(['0.25', '0.26', '4', '-1', '8', 'no significant change']);
    expect(two!.slice(4, 6)).toEqual(['32', 'head']);
    expect(lines[2]).toBe('v1,run 1,v2,after,32,head,"head: generator-limited, at 32",20,,,,,insufficient data,20,,,,,insufficient data,20,,,,,insufficient data');
  });

  it('never lets a run name become a spreadsheet formula', () => {
    const csv = deltaCsv(report('=HYPERLINK("http://evil.example","x")'), 'c');
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csv.split('\r\n').some((l) => l.split(',').some((cell) => /^[=+@]/.test(cell)))).toBe(false);
  });

  it('keeps to the chosen level range', () => {
    expect(deltaCsv(report('after'), 'c', { kind: 'range', min: 1, max: 8 }).trimEnd().split('\r\n')).toHaveLength(2);
  });
});

describe('deltaCsv with server metrics', () => {
  it('adds the cores used (base, head, change and interval in percent) where both sides read CPU, and only then', () => {
    const r = report('after');
    const head = r.heads[0]!;
    const cost = {
      levels: [{ level: 1, qps: { base: 100, head: 131, change: 0.31, ci_low: null, ci_high: null }, cores_used: { base: 2, head: 2.5, change: 0.25, ci_low: 0.1, ci_high: 0.42 }, qps_per_core: { base: 50, head: 52.4, change: 0.048, ci_low: null, ci_high: null }, not_comparable: false, sentence: '+31% QPS for +25% CPU at 1' }],
      basis: 'repeats' as const,
      note: '',
    };
    const lines = deltaCsv({ ...r, heads: [{ ...head, cost }] }, 'workers').trimEnd().split('\r\n');
    expect(lines[0]!.endsWith(',p99_ms_verdict,cores_used_base,cores_used_head,cores_used_change_pct,cores_used_ci_low_pct,cores_used_ci_high_pct')).toBe(true);
    expect(lines[1]!.split(',').slice(-5)).toEqual(['2', '2.5', '25', '10', '42']);
    // A level without CPU on both sides: empty cells.
    expect(lines[2]!.split(',').slice(-5)).toEqual(['', '', '', '', '']);
    expect(deltaCsv(r, 'workers').split('\r\n')[0]).not.toContain('cores_used');
  });
});
