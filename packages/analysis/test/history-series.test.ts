import { describe, expect, it } from 'vitest';
import { groupSeries, type HistoryRun } from '../src/history/index.ts';

const GRID = [1, 2, 4, 8, 16];
let clock = 0;
const run = (id: string, over: Partial<HistoryRun> = {}): HistoryRun => ({
  id,
  release: 'v1',
  created_at: ++clock,
  status: 'finished',
  load_model: 'closed',
  parameter: 'concurrency',
  tags: {},
  labels: [],
  levels: GRID,
  ...over,
});
const groups = (runs: HistoryRun[]) => groupSeries(runs).map((s) => s.runs);

describe('comparable series', () => {
  it('joins runs of the same load model, parameter, grid, target, request and SLO across releases', () => {
    const series = groupSeries([run('a'), run('b', { release: 'v2' }), run('c', { release: 'v3', tags: { target: 'http://t/' } }), run('d', { release: 'v4', tags: { target: 'http://t/' } })]);
    expect(series.map((s) => s.runs)).toEqual([['a', 'b'], ['c', 'd']]);
    expect(series[0]!.name).toBe('closed loop, concurrency 1–16 (5 levels)');
    expect(series[1]!.target).toBe('http://t/');
  });

  it('never joins an open-loop rate with a closed-loop concurrency, even with the same levels', () => {
    expect(groups([run('a'), run('b', { load_model: 'open', parameter: 'concurrency' }), run('c', { load_model: 'open', parameter: 'rate' })])).toEqual([['a'], ['b'], ['c']]);
  });

  it('never joins different swept parameters, grids, requests or SLOs', () => {
    expect(groups([run('a'), run('b', { parameter: 'workers' }), run('c', { levels: [1, 2, 4, 8] }), run('d', { request: 'GET /cart' }), run('e', { slo: 'p99<=50ms' })])).toEqual([['a'], ['b'], ['c'], ['d'], ['e']]);
  });

  it('reads one SLO in any spelling and clause order; a search is one series whatever levels it ran', () => {
    expect(groups([run('a', { tags: { slo: 'p99<=50ms, errors<=1%' } }), run('b', { slo: 'errors<=1%,P99<=50ms' })])).toEqual([['a', 'b']]);
    const s = groupSeries([run('a', { search: true, levels: [1, 2, 4, 5] }), run('b', { tags: { search: 'true' }, levels: [1, 2, 3] })]);
    expect(s.map((x) => x.runs)).toEqual([['a', 'b']]);
    expect(s[0]!.grid).toBeNull();
  });

  it('a series=NAME label (or tag) forces the group, but not across load models or parameters', () => {
    const s = groupSeries([
      run('a', { labels: ['series=checkout'] }),
      run('b', { levels: [1, 2, 4], tags: { target: 'http://other/' }, labels: ['baseline', 'series=checkout'] }),
      run('c', { tags: { series: 'checkout' }, slo: 'p99<=10ms' }),
      run('d', { load_model: 'open', parameter: 'rate', labels: ['series=checkout'] }),
      run('e'),
    ]);
    expect(s.map((x) => [x.runs, x.forced_by])).toEqual([
      [['a', 'b', 'c'], 'checkout'],
      [['d'], 'checkout'],
      [['e'], null],
    ]);
  });

  it('leaves running runs out; an aborted run joins the series whose grid holds its levels, marked partial', () => {
    const s = groupSeries([run('a'), run('b', { status: 'aborted', levels: [1, 2] }), run('c', { status: 'running' }), run('d', { status: 'aborted', levels: [1, 3] })]);
    expect(s.map((x) => [x.runs, x.partial])).toEqual([
      [['a', 'b'], ['b']],
      [['d'], ['d']],
    ]);
  });
});
