import { describe, expect, it } from 'vitest';
import { formatSignificant, formatWithError } from '@kneeboard/contracts/figures';
import { formatCompact, formatCount, formatDuration, formatRelative, formatTimestamp } from './format.ts';

describe('format', () => {
  it('prints a missing value as a dash, and a real zero as zero', () => {
    expect(formatCount(null)).toBe('—');
    expect(formatCount(Number.NaN)).toBe('—');
    expect(formatCount(0)).toBe('0');
  });

  it('prints ticks compactly', () => {
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

  it('prints fitted numbers to significant digits, and tiny ones with an exponent', () => {
    expect(formatSignificant(0.12929634)).toBe('0.129');
    expect(formatSignificant(0.0027397)).toBe('0.00274');
    expect(formatSignificant(24.171268)).toBe('24.2');
    expect(formatSignificant(107.79)).toBe('108');
    expect(formatSignificant(4117.2259)).toBe('4,117');
    expect(formatSignificant(0.049260655, 2)).toBe('0.049');
    expect(formatSignificant(0.000012345)).toBe('1.23e-5');
    expect(formatSignificant(0)).toBe('0');
    expect(formatSignificant(null)).toBe('—');
  });

  it('prints a fitted value and its standard error to the same precision', () => {
    expect(formatWithError(24.171268, 3.3297)).toBe('24.2 ± 3.3');
    expect(formatWithError(0.12929634, 0.04926)).toBe('0.129 ± 0.049');
    expect(formatWithError(0.0027397, 0.00106946)).toBe('0.00274 ± 0.00107');
    expect(formatWithError(0.00019982, 0.0000792)).toBe('0.000200 ± 0.000079');
    expect(formatWithError(312.2867, 45.59)).toBe('312 ± 46');
    expect(formatWithError(4117.2, 120.4)).toBe('4,117 ± 120');
    expect(formatWithError(0.0000023, 0.0000008)).toBe('(2.30 ± 0.80)e-6');
    expect(formatWithError(0.5, 0.00001)).toBe('0.500 ± <0.001');
    expect(formatWithError(0, 0.02)).toBe('0.000 ± 0.020');
    expect(formatWithError(0, 2.09e-16)).toBe('0');
    expect(formatWithError(24.17, null)).toBe('24.2');
  });
});
