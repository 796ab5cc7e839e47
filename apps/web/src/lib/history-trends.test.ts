import { describe, expect, it } from 'vitest';
import type { ServiceHistoryResponse } from '@kneeboard/contracts';
import { historyTrends, noChangeNote, trendDomain } from './history-trends.ts';

const run = (id: string, excluded: string | null = null) => ({ run_id: id, excluded });
const point = (value: number, low: number | null = null, high: number | null = null) => ({ value, low, high, runs: 1, bracket: null });

function history(): ServiceHistoryResponse {
  return {
    service: 'checkout',
    runs_read: 5,
    series: [
      {
        series: { key: 'k', name: 'closed loop, concurrency', load_model: 'closed', parameter: 'concurrency', grid: [1, 2, 4], search: false, target: null, request: null, slo: null, forced_by: null, runs: ['a', 'b', 'c', 'd', 'e'], partial: [] },
        points: {
          base_knee: 4,
          confidence: 0.95,
          spread: { peak_qps: null, knee_level: null, p99_at_base_knee_ms: null, capacity_qps: null },
          releases: [
            { release: 'v1', first_run_at: 1, runs: [run('aaaaaaaa-1')], features: { peak_qps: point(100), knee_level: point(4), p99_at_base_knee_ms: null, capacity_qps: null } },
            { release: 'v2', first_run_at: 2, runs: [run('bbbbbbbb-1'), run('cccccccc-1', "Little's law: 2 of 4 in flight")], features: { peak_qps: point(98, 95, 101), knee_level: point(4), p99_at_base_knee_ms: null, capacity_qps: null } },
            { release: 'v 3', first_run_at: 3, runs: [run('dddddddd-1')], features: { peak_qps: point(80), knee_level: null, p99_at_base_knee_ms: point(30), capacity_qps: null } },
          ],
        },
        change_points: [{ feature: 'peak_qps', release: 'v 3', previous_release: 'v2', release_index: 2, ratio: 0.82, log_ratio: Math.log(0.82), ratio_low: 0.78, ratio_high: 0.86, p_value: 0.01 }],
        change_point_min_releases: 6,
      },
    ],
  };
}

describe('historyTrends', () => {
  it('draws the features with two points or more, with intervals, left-out runs and change points', () => {
    const [s] = historyTrends('checkout', history());
    expect(s!.features.map((f) => f.feature)).toEqual(['peak_qps', 'knee_level']);
    const qps = s!.features[0]!;
    expect(qps.points.map((p) => p.value)).toEqual([100, 98, 80]);
    expect(qps.points[1]!.spread).toEqual([3, 3]);
    expect(qps.points[0]!.spread).toBeNull();
    expect(qps.points[1]!.excluded).toEqual(["run cccccccc: Little's law: 2 of 4 in flight"]);
    expect(qps.changes).toEqual([{ release: 'v 3', label: '−18%', href: '/compare?base=release%3Acheckout%40v2&head=release%3Acheckout%40v+3' }]);
  });

  it('links a point to its run when the release has one, else to the comparison with the release before', () => {
    const qps = historyTrends('checkout', history())[0]!.features[0]!;
    expect(qps.points.map((p) => p.href)).toEqual(['/runs/aaaaaaaa-1', '/compare?base=release%3Acheckout%40v1&head=release%3Acheckout%40v2', '/runs/dddddddd-1']);
  });

  it('says no change point was looked for where a series has too few releases, never that it held steady', () => {
    // Two releases: 399 → 599 req/s is no "steady" series, but the detector needs 6 points to look.
    const [s] = historyTrends('checkout', history());
    expect(noChangeNote({ ...s!, minReleases: 6 })).toBe(
      'No change point looked for yet: the search needs 6 releases with a value, and this series has 3. Compare the releases below to see what changed.',
    );
    // Peak throughput has 3 values, the knee 2: with 3 needed, only the first was looked at.
    expect(noChangeNote({ ...s!, minReleases: 3 })).toBe('No change point in peak throughput; the other features are not looked at yet (the search needs 3 releases with a value).');
    expect(noChangeNote({ ...s!, minReleases: 2 })).toBe('No change point: every feature holds steady across these releases.');
  });

  it("widens a flat feature's y range to ±5% of its middle, and keeps a wide one as its points and intervals span", () => {
    const at = (value: number, spread: [number, number] | null = null) => ({ release: 'v', value, spread, excluded: [], href: '/' });
    // 23.9 and 24.0 ms: the axis' ticks would be hundredths apart, labelled alike at three figures.
    const [lo, hi] = trendDomain([at(23.9), at(24.0)]);
    expect(lo).toBeCloseTo(23.95 * 0.95, 9);
    expect(hi).toBeCloseTo(23.95 * 1.05, 9);
    expect(trendDomain([at(399), at(599, [10, 20])])).toEqual([399, 619]);
    expect(historyTrends('checkout', history())[0]!.features[0]!.axis).toEqual({ domain: [80, 105], ticks: [80, 85, 90, 95, 100, 105] });
  });

  it('leaves out a series of one release', () => {
    const h = history();
    h.series[0]!.points.releases = h.series[0]!.points.releases.slice(0, 1);
    expect(historyTrends('checkout', h)).toEqual([]);
  });
});
