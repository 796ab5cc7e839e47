import { describe, expect, it } from 'vitest';
import { formatBytes, formatCoresUsed, MAX_SERVER_METRICS, ServerMetricsBatch } from '../src/index.ts';

describe('cost figures', () => {
  it('cores read as a sentence has them: whole counts whole, one decimal from 1, two below, a dash for none', () => {
    expect([8, 7.8, 16.04, 0.537, 0, null, Number.NaN].map(formatCoresUsed)).toEqual(['8', '7.8', '16.0', '0.54', '0', '—', '—']);
  });
  it('bytes in binary units with one decimal', () => {
    expect([512, 1024, 50 * 1024 * 1024, 1.25 * 1024 ** 3, null].map(formatBytes)).toEqual(['512 B', '1.0 KiB', '50.0 MiB', '1.3 GiB', '—']);
  });
});

describe('ServerMetricsBatch', () => {
  const point = { metric: 'cpu', fn: 'rate', second: 1_800_000_000, value: 0.5 };
  it('takes a step’s points and defaults cores and notes', () => {
    expect(ServerMetricsBatch.parse({ level: 4, source: 'cgroup', points: [point] })).toEqual({ level: 4, source: 'cgroup', cores_available: null, points: [point], notes: [] });
  });
  it('names what is wrong: an alias, one metric read two ways, too many metrics, a second outside 2000–2100, a note with a line break', () => {
    const issue = (body: unknown) => {
      const r = ServerMetricsBatch.safeParse(body);
      return r.success ? null : r.error.issues.map((i) => i.path.join('.'));
    };
    expect(issue({ level: 4, source: 'process', points: [{ ...point, metric: '1cpu' }] })).toEqual(['points.0.metric']);
    expect(issue({ level: 4, source: 'process', points: [point, { ...point, fn: 'max' }] })).toEqual(['points.1.fn']);
    const many = Array.from({ length: MAX_SERVER_METRICS + 1 }, (_, i) => ({ ...point, metric: `m${i}` }));
    expect(issue({ level: 4, source: 'process', points: many })).toEqual(['points']);
    expect(issue({ level: 4, source: 'process', points: [{ ...point, second: 1_800_000_000_000 }] })).toEqual(['points.0.second']);
    expect(issue({ level: 4, source: 'process', points: [], notes: ['a\nb'] })).toEqual(['notes.0']);
  });
});
