import { describe, expect, it } from 'vitest';
import {
  formatChange,
  formatChangeInterval,
  formatChangeWithInterval,
  formatClockMs,
  formatCores,
  formatCsvNumber,
  formatDegreesOfFreedom,
  formatElapsedSeconds,
  formatEmbedTick,
  formatInFlight,
  formatLevel,
  formatMs,
  formatPercent,
  formatPercentile,
  formatPercentSetting,
  formatQps,
  formatR2,
  formatSeconds,
  formatShare,
  formatSignedClockMs,
  formatWholeSeconds,
} from '../src/figures.ts';

/** One row per figure kind and case: the text every consumer (Markdown, web, CLI, sentences) prints. */
const TABLE: Array<[kind: string, print: () => string, expected: string]> = [
  // level: a label, as typed; fitted levels to three significant digits
  ['level', () => formatLevel(8), '8'],
  ['level', () => formatLevel(1024), '1024'],
  ['level', () => formatLevel(12.5), '12.5'],
  ['level', () => formatLevel(12.5 + 1e-12), '12.5'],
  ['level', () => formatLevel(0.5), '0.5'],
  ['level', () => formatLevel(0.0125), '0.0125'],
  ['level', () => formatLevel(17.827076), '17.8'],
  ['level', () => formatLevel(1359.6), '1360'],
  ['level', () => formatLevel(Number.NaN), '—'],
  // percent change: signed, a true minus, one decimal under 10%
  ['change', () => formatChange(0.3104), '+31%'],
  ['change', () => formatChange(-0.042), '−4.2%'],
  ['change', () => formatChange(156.76), '+15676%'],
  ['change', () => formatChange(0.00001), '±0.0%'],
  ['change', () => formatChange(-0.00001), '±0.0%'],
  ['change', () => formatChange(null), '—'],
  // latency in ms: about three significant digits, grouped from 100
  ['ms', () => formatMs(0.254), '0.25'],
  ['ms', () => formatMs(0.5), '0.50'],
  ['ms', () => formatMs(12.44), '12.4'],
  ['ms', () => formatMs(157.3), '157'],
  ['ms', () => formatMs(1778.2), '1,778'],
  ['ms', () => formatMs(0), '0.00'],
  ['ms', () => formatMs(null), '—'],
  // QPS: one decimal below 100, grouped whole numbers from there
  ['qps', () => formatQps(9.06), '9.1'],
  ['qps', () => formatQps(99.4), '99.4'],
  ['qps', () => formatQps(103.4), '103'],
  ['qps', () => formatQps(120797.4), '120,797'],
  ['qps', () => formatQps(0), '0.0'],
  ['qps', () => formatQps(undefined), '—'],
  // requests in flight: one decimal, like the level it is compared with
  ['in flight', () => formatInFlight(12.5), '12.5'],
  ['in flight', () => formatInFlight(8), '8.0'],
  ['in flight', () => formatInFlight(999.96), '1,000.0'],
  ['in flight', () => formatInFlight(null), '—'],
  // a ratio as a percentage: whole from 10%, one decimal below
  ['percent', () => formatPercent(0.971), '97%'],
  ['percent', () => formatPercent(1.043), '104%'],
  ['percent', () => formatPercent(0.625), '63%'],
  ['percent', () => formatPercent(0.0714), '7.1%'],
  ['percent', () => formatPercent(0.0478813), '4.8%'],
  ['percent', () => formatPercent(0.05), '5%'],
  ['percent', () => formatPercent(0), '0%'],
  ['percent', () => formatPercent(undefined), '—'],
  // interval: both ends signed with their %, the same decimals, as many as it takes to differ
  ['interval', () => formatChangeInterval(0.29, 0.331), '+29%…+33%'],
  ['interval', () => formatChangeInterval(-0.081, 0.024), '−8.1%…+2.4%'],
  ['interval', () => formatChangeInterval(0.05, 0.33), '+5.0%…+33.0%'],
  ['interval', () => formatChangeInterval(0.301, 0.304), '+30.1%…+30.4%'],
  ['interval', () => formatChangeInterval(0.3, 0.3), '+30%…+30%'],
  ['interval', () => formatChangeInterval(-0.0001, 0.0001), '−0.01%…+0.01%'],
  ['interval', () => formatChangeInterval(null, 0.1), '—'],
  ['change with interval', () => formatChangeWithInterval(0.31, 0.29, 0.331), '+31% [+29%…+33%]'],
  ['change with interval', () => formatChangeWithInterval(0.31, null, null), '+31%'],
  ['change with interval', () => formatChangeWithInterval(null, 0.29, 0.331), '—'],
];

describe('figures: one text per number', () => {
  it.each(TABLE.map(([kind, print, expected], i) => ({ kind, print, expected, i })))('$kind #$i prints $expected', ({ print, expected }) => {
    expect(print()).toBe(expected);
  });
});

describe('the figures that were printed with toFixed where they were used', () => {
  it('prints seconds, clock readings and cores with fixed decimals, ungrouped, a dash when missing', () => {
    expect(formatSeconds(9.84)).toBe('9.8');
    expect(formatSeconds(3600)).toBe('3600.0');
    expect(formatSeconds(null)).toBe('—');
    expect(formatWholeSeconds(2.5)).toBe('3');
    expect(formatClockMs(0.44)).toBe('0.4');
    expect(formatSignedClockMs(0.44)).toBe('+0.4');
    expect(formatSignedClockMs(-12.46)).toBe('−12.5');
    expect(formatCores(1.916)).toBe('1.92');
    expect(formatCores(undefined)).toBe('—');
  });

  it('prints shares with one decimal and a chosen threshold as it was chosen', () => {
    expect(formatShare(0.0031)).toBe('0.3%');
    expect(formatShare(0.04)).toBe('4.0%');
    expect(formatPercentSetting(0.05)).toBe('5%');
    expect(formatPercentSetting(0.025)).toBe('2.5%');
    expect(formatPercentSetting(0.1225)).toBe('12.25%');
  });

  it('prints R², degrees of freedom and percentile names', () => {
    expect(formatR2(0.9781)).toBe('0.98');
    expect(formatR2(0.9781, 3)).toBe('0.978');
    expect(formatR2(Number.NaN)).toBe('—');
    expect(formatDegreesOfFreedom(2e5)).toBe('∞');
    expect(formatDegreesOfFreedom(24.4)).toBe('24');
    expect(formatDegreesOfFreedom(3.43)).toBe('3.4');
    expect(formatPercentile(99.99000000001)).toBe('99.99');
    expect(formatPercentile(50)).toBe('50');
  });

  it('prints a CSV number at the pages\' precision and an embed tick compactly', () => {
    expect(formatCsvNumber(0.2549)).toBe('0.25');
    expect(formatCsvNumber(12.44)).toBe('12.4');
    expect(formatCsvNumber(1234.5)).toBe('1235');
    expect(formatEmbedTick(1500)).toBe('1.5k');
    expect(formatEmbedTick(12.255)).toBe('12.26');
    expect(formatElapsedSeconds(12.5)).toBe('12.5');
    expect(formatElapsedSeconds(0.254, 1)).toBe('0.3');
  });
});
