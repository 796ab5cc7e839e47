import { describe, expect, it } from 'vitest';
import { prepareRunView, runChartExport } from './run-view.ts';
import { detail, point, seedCurve } from './test-runs.ts';
import { DEFAULT_SETTINGS, type ChartSettings } from './view-state.ts';

const settings = (over: Partial<ChartSettings> = {}): ChartSettings => ({ ...DEFAULT_SETTINGS, ...over });

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

describe('runChartExport', () => {
  it('titles and names an export by the run, then the chart', () => {
    const spec = runChartExport({ service: 'checkout', release: 'v1.2', name: 'night' }, 'Latency', 'ms', []);
    expect(spec.title).toBe('checkout v1.2 · night — Latency');
    expect(spec.fileParts).toEqual(['checkout', 'v1.2', 'Latency']);
  });
});
