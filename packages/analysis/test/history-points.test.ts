import { describe, expect, it } from 'vitest';
import { groupSeries, p99At, releasePoints, serviceHistory, type HistoryRun, type RunFeatures } from '../src/history/index.ts';

const GRID = [1, 2, 4, 8, 16, 32];
const run = (id: string, release: string, at: number, over: Partial<HistoryRun> = {}): HistoryRun => ({
  id, release, created_at: at, status: 'finished', load_model: 'closed', parameter: 'concurrency', tags: {}, labels: [], levels: GRID, ...over,
});
/** A W-worker server: QPS min(c, W)·100, knee at W, p99 10 ms up to W then 10·c/W. */
const features = (id: string, w: number, scale = 1, excluded: string | null = null): RunFeatures => ({
  run_id: id,
  peak_qps: w * 100 * scale,
  knee: { level: w, bracket: { low: w / 2, high: w } },
  p99: GRID.map((c) => ({ level: c, p99_ms: (10 * Math.max(1, c / w)) / scale })),
  capacity_qps: w * 90 * scale,
  excluded,
});

describe('per-release points', () => {
  it('one point per release and feature: geometric mean of its usable runs, intervals from the pooled repeats, excluded runs named and counted nowhere', () => {
    const runs = [run('a1', 'v1', 1), run('a2', 'v1', 2), run('b1', 'v2', 3), run('b2', 'v2', 4), run('b3', 'v2', 5), run('c1', 'v3', 6)];
    const feats = [features('a1', 8, 0.98), features('a2', 8, 1.02), features('b1', 8, 1.01), features('b2', 8, 0.99), features('b3', 8, 0.5, 'the agent flagged concurrency 32 generator-limited'), features('c1', 16, 1)];
    const [series] = groupSeries(runs);
    const pts = releasePoints(series!, runs, feats);
    expect(pts.releases.map((r) => r.release)).toEqual(['v1', 'v2', 'v3']);
    expect(pts.base_knee).toBe(8);
    const v2 = pts.releases[1]!;
    expect(v2.runs.find((r) => r.run_id === 'b3')!.excluded).toMatch(/generator-limited/);
    expect(v2.features.peak_qps!.runs).toBe(2);
    expect(v2.features.peak_qps!.value).toBeCloseTo(800 * Math.sqrt(1.01 * 0.99), 6);
    // Pooled spread of log(0.98/1.02) and log(1.01/0.99) pairs: 2 degrees of freedom, so a t-interval around each mean.
    expect(pts.spread.peak_qps!.df).toBe(2);
    expect(v2.features.peak_qps!.low!).toBeLessThan(v2.features.peak_qps!.value);
    expect(v2.features.peak_qps!.high!).toBeGreaterThan(v2.features.peak_qps!.value);
    // A release measured once still gets the series' spread, wider by √2 on the log scale.
    const v3 = pts.releases[2]!.features.peak_qps!;
    const w1 = Math.log(v3.high! / v3.value);
    const w2 = Math.log(v2.features.peak_qps!.high! / v2.features.peak_qps!.value);
    expect(w1 / w2).toBeCloseTo(Math.SQRT2, 6);
    // The knee moved to 16 in v3; p99 is still read at the base knee, 8: 10 ms, not v3's own knee.
    expect(pts.releases[2]!.features.knee_level!.value).toBeCloseTo(16, 9);
    expect(pts.releases[2]!.features.knee_level!.bracket).toEqual({ low: 8, high: 16 });
    expect(pts.releases[2]!.features.p99_at_base_knee_ms!.value).toBeCloseTo(10, 9);
    // No SLO on the series: no capacity point, whatever the runs carry.
    expect(pts.releases[0]!.features.capacity_qps).toBeNull();
  });

  it('capacity is a feature only of a series with an SLO; an aborted run is marked partial; without repeats there is no interval', () => {
    const runs = [run('a', 'v1', 1, { slo: 'p99<=50ms' }), run('b', 'v2', 2, { slo: 'p99<=50ms' }), run('x', 'v2', 3, { slo: 'p99<=50ms', status: 'aborted', levels: [1, 2] })];
    const [series] = groupSeries(runs);
    const pts = releasePoints(series!, runs, [features('a', 8), features('b', 8, 1.1), features('x', 8, 3)]);
    expect(pts.releases[1]!.runs.find((r) => r.run_id === 'x')!.excluded).toMatch(/partial/);
    expect(pts.releases[1]!.features.capacity_qps).toMatchObject({ value: 8 * 90 * 1.1, runs: 1, low: null, high: null });
  });

  it('p99 between measured levels is interpolated log-log, and unknown outside them', () => {
    const p99 = [{ level: 4, p99_ms: 10 }, { level: 16, p99_ms: 40 }];
    expect(p99At(p99, 8)).toBeCloseTo(20, 9);
    expect(p99At(p99, 4)).toBe(10);
    expect(p99At(p99, 2)).toBeNull();
    expect(p99At(p99, 32)).toBeNull();
  });
});

describe('a service history', () => {
  it('finds the release where peak QPS fell 15% and where it came back, naming the release before each', () => {
    const noise = [0.01, -0.02, 0.015, 0, -0.01, 0.02, -0.015, 0.005, 0.01, -0.005, 0.012, -0.008];
    const scale = (i: number) => (i >= 8 && i < 16 ? 0.85 : 1) * Math.exp(noise[i % noise.length]!);
    const runs = Array.from({ length: 24 }, (_, i) => run(`r${i}`, `v${i}`, i));
    const [h, ...rest] = serviceHistory(runs, runs.map((r, i) => features(r.id, 8, scale(i))));
    expect(rest).toEqual([]);
    const qps = h!.change_points.filter((c) => c.feature === 'peak_qps');
    expect(qps.map((c) => [c.release, c.previous_release])).toEqual([['v8', 'v7'], ['v16', 'v15']]);
    expect(qps[0]!.ratio).toBeCloseTo(0.85, 1);
    expect(qps[0]!.ratio_high).toBeLessThan(1);
    expect(qps[1]!.ratio_low).toBeGreaterThan(1);
    // The knee never moved: no change point for it.
    expect(h!.change_points.filter((c) => c.feature === 'knee_level')).toEqual([]);
    expect(serviceHistory(runs, runs.map((r, i) => features(r.id, 8, scale(i))))).toEqual([h]);
  });
});
