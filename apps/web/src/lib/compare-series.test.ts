import { parseLevelSelection } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { compareCharts, fitLines, kneeMarks, overlayData, runLabel, runSeries, sweptLevels, visibleLevels } from './compare-series.ts';
import { PALETTE } from '@kneeboard/svg-charts';
import { detail, point, seedCurve, testRun } from './test-runs.ts';
import { DEFAULT_SETTINGS } from './view-state.ts';

const base = detail(1, [point(1), point(2), point(4), point(8)], { knee: 4 });
const head = detail(2, [point(1), point(4), point(8), point(16)], { knee: 8 });

describe('runSeries', () => {
  it('puts the base first, dashed, and gives each run the compare.svg colour in order (svg-charts’ palette, the one home of it)', () => {
    const runs = [base, head, ...[3, 4, 5, 6, 7, 8].map((n) => detail(n, [point(1)]))];
    const s = runSeries(runs);
    expect(s.map((x) => x.colour)).toEqual([...PALETTE]);
    // Past the palette's end the colours repeat, as in compare.svg.
    expect(runSeries([...runs, detail(9, [point(1)])])[8]?.colour).toBe(PALETTE[0]);
    expect(s.map((x) => x.dashed)).toEqual([true, false, false, false, false, false, false, false]);
    expect(s.map((x) => x.role)).toEqual(['base', 'head', 'head', 'head', 'head', 'head', 'head', 'head']);
    expect(s[0]).toMatchObject({ key: 'run0', label: 'v1', knee: 4, peak: { level: 8, qps: 80 } });
  });

  it('names runs by release, with the run name when releases repeat', () => {
    const a = testRun(1, { release: 'v2', name: 'morning' });
    const b = testRun(2, { release: 'v2', name: '' });
    const c = testRun(3, { release: 'v3' });
    expect([a, b, c].map((r) => runLabel(r, [a, b, c]))).toEqual(['v2 (morning)', `v2 (${b.id.slice(0, 8)})`, 'v3']);
  });
});

describe('overlayData', () => {
  it('draws each run through its own levels only: a level only some runs swept is no point (never 0) on the others', () => {
    const d = overlayData([base, head], 'qps', { levels: null, yScale: 'linear' });
    expect(d.lines[0]?.points.map((p) => p.level)).toEqual([1, 2, 4, 8]);
    expect(d.lines[1]?.points.map((p) => p.level)).toEqual([1, 4, 8, 16]);
    expect(d.rows.map((r) => r.level)).toEqual([1, 2, 4, 8, 16]);
    const at2 = d.rows.find((r) => r.level === 2)!;
    expect(at2.cells).toEqual([
      { value: 20, swept: true },
      { value: null, swept: false },
    ]);
    expect(d.rows.find((r) => r.level === 16)!.cells[0]).toEqual({ value: null, swept: false });
    expect(d.lines.flatMap((l) => l.points.map((p) => p.value))).not.toContain(0);
  });

  it('breaks a line where a measured level has no value, and keeps a measured QPS of 0', () => {
    const failed = detail(3, [point(1), point(2, { qps: 0, p50_ms: null, p99_ms: null }), point(4)]);
    const lat = overlayData([base, failed], 'p99_ms', { levels: null, yScale: 'linear' });
    expect(lat.lines[1]?.points.map((p) => p.value)).toEqual([20, null, 80]);
    expect(lat.rows.find((r) => r.level === 2)!.cells[1]).toEqual({ value: null, swept: true });
    const qps = overlayData([base, failed], 'qps', { levels: null, yScale: 'log' });
    expect(qps.lines[1]?.points.map((p) => p.value)).toEqual([10, 0, 40]);
    expect(qps.yAxis?.domain[0]).toBe(0);
  });

  it('on a log latency axis turns values ≤ 0 into gaps and counts them', () => {
    const zero = detail(3, [point(1, { p50_ms: 0 }), point(2)]);
    const d = overlayData([zero, head], 'p50_ms', { levels: null, yScale: 'log' });
    expect(d.lines[0]?.points.map((p) => p.value)).toEqual([null, 20]);
    expect(d.droppedOnLog).toBe(1);
    expect(d.yAxis?.domain[0]).toBeGreaterThan(0);
  });

  it('keeps only the selected levels, for lines, rows and the y axis', () => {
    const d = overlayData([base, head], 'p50_ms', { levels: parseLevelSelection('2-8'), yScale: 'linear' });
    expect(d.rows.map((r) => r.level)).toEqual([2, 4, 8]);
    expect(d.lines[1]?.points.map((p) => p.level)).toEqual([4, 8]);
    expect(d.yAxis?.domain[1]).toBe(80); // 160 at level 16 is outside the range
    expect(visibleLevels([base, head], parseLevelSelection('1,16'))).toEqual([1, 16]);
    expect(sweptLevels([base, head])).toEqual([1, 2, 4, 8, 16]);
  });

  it('widens the throughput axis for fitted lines', () => {
    expect(overlayData([base], 'qps', { levels: null, yScale: 'linear', extraY: [250] }).yAxis?.domain[1]).toBeGreaterThanOrEqual(250);
  });
});

describe('fits and knees', () => {
  it('clips each run’s fitted line to the axis and leaves out runs without one', () => {
    // Seed 001 is swept 1…32 and fitted; two levels are too few for a fit, so that run draws no line.
    const withFit = detail(2, seedCurve());
    const noFit = detail(1, [point(1), point(2)]);
    expect(noFit.analysis.usl_curve).toEqual([]);
    const lines = fitLines([noFit, withFit], 'log', [1, 16]);
    expect(lines).toEqual([{ key: 'run1', colour: PALETTE[1], points: withFit.analysis.usl_curve.filter((p) => p.level <= 16), trusted: withFit.analysis.usl_trusted }]);
    expect(lines[0]?.points.length).toBeGreaterThan(30);
  });

  it('carries each run’s usl_trusted so an untrusted fit is drawn faint on the overlay too', () => {
    const trusted = detail(1, seedCurve());
    const untrusted = detail(2, seedCurve());
    trusted.analysis.usl_trusted = true;
    untrusted.analysis.usl_trusted = false;
    untrusted.analysis.usl_untrusted_reason = 'only one level past the knee';
    expect(fitLines([trusted, untrusted], 'linear', [1, 32]).map((f) => [f.key, f.trusted])).toEqual([
      ['run0', true],
      ['run1', false],
    ]);
  });

  it('marks each knee the axis can place, in its run’s colour', () => {
    const s = runSeries([base, head, detail(3, [point(1)], { knee: 64 })]);
    expect(kneeMarks(s, 'log', [1, 16])).toEqual([
      { key: 'run0', level: 4, colour: PALETTE[0], title: 'v1 knee · 4' },
      { key: 'run1', level: 8, colour: PALETTE[1], title: 'v2 knee · 8' },
    ]);
  });
});

describe('groups of repeats', () => {
  it('gives a group one colour, one dash and one label, and numbers its runs', () => {
    const runs = [base, detail(3, [point(1)]), detail(4, [point(1)]), head, detail(5, [point(1)])];
    for (const r of runs.slice(1, 3)) r.run.release = base.run.release;
    runs[4]!.run.release = head.run.release;
    const s = runSeries(runs, [3, 2]);
    expect(s.map((x) => x.group)).toEqual([0, 0, 0, 1, 1]);
    expect(s.map((x) => x.colour)).toEqual([PALETTE[0], PALETTE[0], PALETTE[0], PALETTE[1], PALETTE[1]]);
    expect(s.map((x) => x.dashed)).toEqual([true, true, true, false, false]);
    expect(s.map((x) => x.role)).toEqual(['base', 'base', 'base', 'head', 'head']);
    expect(s.map((x) => x.label)).toEqual(['v1 ×3', 'v1 ×3', 'v1 ×3', 'v2 ×2', 'v2 ×2']);
    expect(s[1]?.memberLabel).toBe('v1 · run 2/3');
    expect(compareCharts(runs, DEFAULT_SETTINGS, [3, 2]).qps.lines.map((l) => l.colour)).toEqual(s.map((x) => x.colour));
    // Repeats that agree on the knee share one mark per group.
    const knees = kneeMarks(s.map((x) => ({ ...x, knee: 4 })), 'linear', [0, 10]);
    expect(knees.map((k) => [k.colour, k.title])).toEqual([
      [PALETTE[0], 'v1 ×3 knee · 4 (3 of 3 runs)'],
      [PALETTE[1], 'v2 ×2 knee · 4 (2 of 2 runs)'],
    ]);
  });

  it('without sizes, every run is its own group (as before)', () => {
    expect(runSeries([base, head]).map((x) => [x.group, x.groupSize, x.label])).toEqual([
      [0, 1, 'v1'],
      [1, 1, 'v2'],
    ]);
  });
});

describe('compareCharts', () => {
  it('shares one level axis across the charts and draws one latency chart per chosen percentile', () => {
    const c = compareCharts([base, head], { ...DEFAULT_SETTINGS, metrics: ['p99_ms'], y: 'log', levels: parseLevelSelection('2-16') });
    expect(c.levels).toEqual([2, 4, 8, 16]);
    expect(c.allLevels).toEqual([1, 2, 4, 8, 16]);
    // The axis is the run page's rule on every swept level (1, 2 …: geometric → log), not on the
    // levels in view: zooming to 2…16 (8×, which the old span rule drew linear) keeps it log.
    expect(c.xScale).toBe('log');
    expect(c.latency.map((l) => l.metric)).toEqual(['p99_ms']);
    expect(c.latency[0]?.yAxis?.domain[0]).toBeGreaterThan(0);
    expect(c.fits).toEqual([]);
    expect(compareCharts([base, head], DEFAULT_SETTINGS).xScale).toBe('log'); // 1…16
    expect(compareCharts([base, head], { ...DEFAULT_SETTINGS, x: 'linear' }).xDomain[0]).toBe(0);
    // Fitted lines stay inside the levels shown, not the padded axis.
    const withFit = detail(2, seedCurve());
    const fitted = compareCharts([base, withFit], { ...DEFAULT_SETTINGS, fit: true, levels: parseLevelSelection('2-8') });
    const fitLevels = fitted.fits.find((f) => f.key === 'run1')?.points.map((p) => p.level) ?? [];
    expect(fitLevels.length).toBeGreaterThan(5);
    expect(Math.min(...fitLevels)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...fitLevels)).toBeLessThanOrEqual(8);
  });
});
