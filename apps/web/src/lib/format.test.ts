import { describe, expect, it } from 'vitest';
import { formatCompact, formatCount, formatDuration, formatLevel, formatMs, formatQps, formatRelative, formatTimestamp } from './format.ts';

describe('format', () => {
  it('prints QPS with one decimal and ms with two', () => {
    expect(formatQps(103)).toBe('103.0');
    expect(formatQps(1234.56)).toBe('1,234.6');
    expect(formatMs(0.2)).toBe('0.20');
    expect(formatMs(310)).toBe('310.00');
  });

  it('prints a missing value as a dash, and a real zero as zero', () => {
    expect(formatMs(null)).toBe('—');
    expect(formatQps(undefined)).toBe('—');
    expect(formatMs(Number.NaN)).toBe('—');
    expect(formatMs(0)).toBe('0.00');
    expect(formatQps(0)).toBe('0.0');
    expect(formatCount(0)).toBe('0');
  });

  it('prints levels like flag values and ticks compactly', () => {
    expect(formatLevel(1024)).toBe('1024');
    expect(formatLevel(0.5)).toBe('0.5');
    expect(formatCompact(1500)).toBe('1.5K');
    expect(formatCompact(0.25)).toBe('0.25');
    expect(formatCompact(120)).toBe('120');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('prints durations and relative times', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(252_000)).toBe('4m 12s');
    expect(formatDuration(3_720_000)).toBe('1h 02m');
    expect(formatDuration(-1)).toBe('—');
    const now = 1_700_000_000_000;
    expect(formatRelative(now - 2000, now)).toBe('just now');
    expect(formatRelative(now + 60_000, now)).toBe('just now');
    expect(formatRelative(now - 12_000, now)).toBe('12 s ago');
    expect(formatRelative(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatRelative(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(formatRelative(now - 3 * 86_400_000, now)).toBe('3 d ago');
  });

  it('prints timestamps in the given zone, so server and browser agree', () => {
    const t = Date.UTC(2025, 10, 21, 4, 22, 10);
    expect(formatTimestamp(t, 'UTC')).toBe('2025-11-21 04:22:10');
    expect(formatTimestamp(t, 'Asia/Tokyo')).toBe('2025-11-21 13:22:10');
  });
});
