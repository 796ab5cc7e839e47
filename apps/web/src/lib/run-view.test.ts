import { capacityUnderSlos } from '@kneeboard/analysis';
import { parseSlos } from '@kneeboard/contracts';
import { describe, expect, it } from 'vitest';
import { prepareRunView, runChartExport, type RunSettings } from './run-view.ts';
import { detail, point, seedCurve } from './test-runs.ts';
import { DEFAULT_SETTINGS } from './view-state.ts';

const settings = (over: Partial<RunSettings> = {}): RunSettings => ({ ...DEFAULT_SETTINGS, ...over });

describe('prepareRunView', () => {
  const seed = detail(1, seedCurve());

  it('puts a doubling sweep on a log level axis and draws the fit only when the analysis trusts it or the reader asks', () => {
    const v = prepareRunView(seed, settings());
    expect(v.curve.map((p) => p.level)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(v.xScale).toBe('log');
    expect(v.xDomain[0]).toBeLessThan(1);
    expect(v.xDomain[1]).toBeGreaterThan(32);
    expect(v.hasFitLine).toBe(true);
    // Seed 001's fit (R² 0.978, a hard limit the USL only imitates) is one the analysis does not trust.
    expect(seed.analysis.usl_trusted).toBe(false);
    expect(v.showFit).toBe(false);
    expect(v.fitPoints).toEqual([]);

    const on = prepareRunView(seed, settings({ fit: true }));
    expect(on.showFit).toBe(true);
    expect(on.fitPoints[0]?.level).toBe(1);
    expect(on.fitPoints[on.fitPoints.length - 1]?.level).toBe(32);
    // The fitted peak sits above every measured point: the throughput axis holds it.
    const peak = Math.max(...on.fitPoints.map((p) => p.qps));
    expect(on.qps.yAxis.domain[1]).toBeGreaterThanOrEqual(peak);
    expect(on.path).toBe(`/runs/${seed.run.id}?fit=1`);
  });

  it('keeps the fit and the charts to a zoomed range, on the axis the whole sweep chose', () => {
    const v = prepareRunView(seed, settings({ fit: true, levels: { kind: 'range', min: 4, max: 16 } }));
    expect(v.curve.map((p) => p.level)).toEqual([4, 8, 16]);
    expect(v.sweptLevels).toEqual([1, 2, 4, 8, 16, 32]);
    expect(v.xScale).toBe('log');
    expect(v.fitPoints[0]?.level).toBeGreaterThanOrEqual(4);
    expect(v.fitPoints[v.fitPoints.length - 1]?.level).toBeLessThanOrEqual(16);
    expect(v.tableRows).toHaveLength(3);
    expect(v.latency.rows.map((r) => r.level)).toEqual([4, 8, 16]);
  });

  it('says why the charts are empty', () => {
    expect(prepareRunView(detail(2, [], { run: { status: 'running' } }), settings()).waiting).toBe('Waiting for the first level to report…');
    expect(prepareRunView(detail(2, []), settings()).waiting).toBe('This run recorded no levels.');
    expect(prepareRunView(seed, settings({ levels: { kind: 'list', levels: [3] } })).waiting).toBe('No level is inside the chosen range.');
    expect(prepareRunView(seed, settings()).waiting).toBeNull();
  });

  it('marks the level still being measured and shows labels just saved over the older detail', () => {
    const live = detail(3, [point(1), point(2), point(4, { in_progress: true })], { run: { status: 'running' } });
    const v = prepareRunView(live, settings(), { labels: ['baseline'], note: 'first try' });
    expect(v.measuring).toBe(4);
    expect(v.run.labels).toEqual(['baseline']);
    expect(v.run.note).toBe('first try');
  });

  it('draws the offered = achieved line on an open loop only', () => {
    expect(prepareRunView(seed, settings()).offered).toEqual([]);
    const open = detail(4, seedCurve().map((p) => ({ ...p, level: p.level * 10 })), { run: { load_model: 'open', parameter: 'rate' } });
    const v = prepareRunView(open, settings());
    expect(v.openLoop).toBe(true);
    expect(v.offered.length).toBeGreaterThan(1);
    expect(v.xLabel).not.toBe('rate');
  });

  it('drops latency values a log axis cannot draw and counts them', () => {
    const curve = [point(1, { p50_ms: 0 }), point(2), point(4)];
    const v = prepareRunView(detail(5, curve), settings({ y: 'log' }));
    expect(v.latency.droppedOnLog).toBe(1);
    expect(v.latency.rows[0]?.p50_ms).toBeNull();
  });
});

describe('prepareRunView with an SLO', () => {
  const seed = detail(1, seedCurve());
  const slos = (text: string) => (parseSlos(text) as Extract<ReturnType<typeof parseSlos>, { ok: true }>).clauses;
  // Seed 001's p99 is 20 ms × level: p99 ≤ 100 ms holds at 1, 2, 4 and breaks at 8 (judged on the curve's values: no raw sample).
  const capacity = capacityUnderSlos({ curve: seed.curve, slos: slos('p99<=100ms'), parameter: 'concurrency' });

  it('draws the threshold, keeps it on the latency axis, states the capacity and marks it, and keeps slo= in the URL', () => {
    const v = prepareRunView(seed, settings({ slo: 'p99<=100ms', levels: { kind: 'range', min: 1, max: 2 } }), null, capacity);
    expect(v.slo).toEqual({ text: 'p99<=100ms', clauses: [{ metric: 'p99', max_ms: 100 }], source: 'url' });
    expect(v.thresholds).toEqual([{ key: 'p99_ms', ms: 100, label: 'p99 ≤ 100 ms', colour: '#d55e00', slo: 'p99<=100ms' }]);
    // Levels 1–2 reach 40 ms at most: the axis still holds the 100 ms line.
    expect(v.latency.yAxis?.domain[1]).toBeGreaterThanOrEqual(100);
    expect(v.path).toBe(`/runs/${seed.run.id}?levels=1-2&slo=p99%3C%3D100ms`);
    // Capacity is level 4, outside the levels shown: stated, not marked.
    expect(v.capacity?.headline).toBe('Capacity under p99<=100ms: 70.8 req/s at concurrency 4 (bracket 4–8, crossing ≈ 5)');
    expect(v.capacity?.marker).toBeNull();

    const whole = prepareRunView(seed, settings({ slo: 'p99<=100ms' }), null, capacity);
    expect(whole.capacity?.marker).toMatchObject({ level: 4, qps: 70.8, label: 'capacity · 70.8 req/s', bracket: { from: 4, to: 8 } });
  });

  it("follows the run's slo tag when the URL has none, and none at all with slo=none", () => {
    const tagged = detail(2, seedCurve(), { run: { tags: { slo: 'p99 <= 100ms' } } });
    const v = prepareRunView(tagged, settings(), null, capacity);
    expect(v.slo?.source).toBe('tag');
    expect(v.capacity?.headline).toMatch(/^Capacity under p99<=100ms: 70.8 req\/s/);
    expect(v.path).toBe(`/runs/${tagged.run.id}`);
    const off = prepareRunView(tagged, settings({ slo: 'none' }), null, capacity);
    expect(off.slo).toBeNull();
    expect(off.thresholds).toEqual([]);
    expect(off.capacity).toBeNull();
    expect(off.path).toBe(`/runs/${tagged.run.id}?slo=none`);
  });

  it('never shows a capacity computed for other SLOs, and names unclear and skipped levels', () => {
    expect(prepareRunView(seed, settings({ slo: 'p99<=50ms' }), null, capacity).capacity).toBeNull();
    const live = detail(3, [...seedCurve().slice(0, 5), point(32, { in_progress: true, p99_ms: 900 })], { run: { status: 'running' } });
    const judged = capacityUnderSlos({ curve: live.curve, slos: slos('p99<=100ms,errors<=1%'), parameter: 'concurrency', samples: [] });
    const v = prepareRunView(live, settings({ slo: 'p99<=100ms,errors<=1%' }), null, judged);
    // No raw sample at any level: every percentile is unclear, so nothing holds.
    expect(v.capacity?.found).toBe(false);
    expect(v.capacity?.headline).toBe('No capacity under p99<=100ms, errors<=1% yet: no level holds or breaks with confidence');
    expect(v.capacity?.unclear).toBe('Unclear (the interval straddles a threshold, or too few requests; not counted): concurrency 1, 2, 4, 8, 16');
    expect(v.capacity?.skipped).toEqual([{ level: 32, text: 'concurrency 32: still running: its window is open' }]);
    // errors has no line on the latency chart.
    expect(v.thresholds.map((t) => t.slo)).toEqual(['p99<=100ms']);
  });
});

describe('runChartExport', () => {
  it('titles and names an export by the run, then the chart', () => {
    const spec = runChartExport({ service: 'checkout', release: 'v1.2', name: 'night' }, 'Latency', 'ms', []);
    expect(spec.title).toBe('checkout v1.2 · night — Latency');
    expect(spec.fileParts).toEqual(['checkout', 'v1.2', 'Latency']);
  });
});
