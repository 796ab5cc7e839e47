import { describe, expect, it } from 'vitest';
import { formatLevelSelection, LEVEL_SELECTION_PATTERN, LevelSelectionParam, levelSelectionContains, parseLevelSelection, SvgViewQuery, type LevelSelection } from '../src/index.ts';

const range = (min: number | null, max: number | null): LevelSelection => ({ kind: 'range', min, max });
const list = (...levels: number[]): LevelSelection => ({ kind: 'list', levels });

/**
 * The one table of the `levels=` syntax: text → selection, or null when it cannot be read. The web
 * app's URLs and the API's SVG routes both read through parseLevelSelection, so this is their rule.
 */
const TABLE: ReadonlyArray<readonly [string, LevelSelection | null]> = [
  ['4-64', range(4, 64)],
  ['4-', range(4, null)],
  ['-64', range(null, 64)],
  ['0.5-2.5', range(0.5, 2.5)],
  ['8-8', range(8, 8)],
  ['04-8', range(4, 8)],
  ['8', list(8)],
  ['1,2,4', list(1, 2, 4)],
  // One selection, one spelling: a list is sorted and loses its repeats.
  ['16,4,1,4', list(1, 4, 16)],
  ['0.25,0.5', list(0.25, 0.5)],
  // A level is positive (`Level`): 0 is no level, at either end of a range or in a list.
  ['0', null],
  ['0-4', null],
  ['-0', null],
  ['0.0-4', null],
  ['1,0,2', null],
  // A range whose start is above its end selects nothing: refused rather than silently empty.
  ['64-4', null],
  ['2.5-0.5', null],
  // Not the syntax at all.
  ['', null],
  ['-', null],
  ['a-b', null],
  ['lots', null],
  ['1,,2', null],
  ['1,x', null],
  ['1e3', null],
  ['4-8-16', null],
  ['1-2,4', null],
  ['.5', null],
  [' 4-8', null],
  ['1, 2', null],
];

describe('parseLevelSelection', () => {
  it.each(TABLE)('reads %j', (text, expected) => {
    expect(parseLevelSelection(text)).toEqual(expected);
  });

  it('writes what it reads: format then parse gives the selection back', () => {
    for (const [, selection] of TABLE) {
      if (selection === null) continue;
      expect(parseLevelSelection(formatLevelSelection(selection))).toEqual(selection);
    }
    expect(formatLevelSelection(range(4, null))).toBe('4-');
    expect(formatLevelSelection(range(null, 64))).toBe('-64');
    expect(formatLevelSelection(list(1, 2, 4))).toBe('1,2,4');
  });

  it('refuses a long hostile text in linear time', () => {
    // With an ambiguous number pattern (`\d*[1-9]\d*`) this took about 20 s; linear, it takes a millisecond.
    const started = Date.now();
    expect(parseLevelSelection(`0.${'1'.repeat(100_000)}x`)).toBeNull();
    expect(parseLevelSelection(`${'1,'.repeat(50_000)}x`)).toBeNull();
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('has a pattern (stated in the OpenAPI document) that refuses exactly the texts of bad syntax or with a 0', () => {
    const pattern = new RegExp(LEVEL_SELECTION_PATTERN);
    // Only the start-above-end rule is beyond a pattern.
    const beyondPattern = new Set(['64-4', '2.5-0.5']);
    for (const [text, expected] of TABLE) expect(pattern.test(text), text).toBe(expected !== null || beyondPattern.has(text));
  });
});

describe('LevelSelectionParam (the API query parameter)', () => {
  it.each(TABLE)('accepts %j exactly when parseLevelSelection does, with the same selection', (text, expected) => {
    const parsed = LevelSelectionParam.safeParse(text);
    expect(parsed.success).toBe(expected !== null);
    if (parsed.success) expect(parsed.data).toEqual(expected);
  });

  it('says why a range is refused', () => {
    expect(LevelSelectionParam.safeParse('64-4').error?.issues[0]?.message).toMatch(/start is above its end/);
    expect(LevelSelectionParam.safeParse('0-4').error?.issues[0]?.message).toMatch(/levels above 0/);
  });

  it('is the levels of an SVG view', () => {
    expect(SvgViewQuery.parse({ metrics: 'p50,p999', levels: '4-64', y: 'log' })).toEqual({ metrics: ['p50', 'p999'], levels: range(4, 64), y: 'log' });
    expect(SvgViewQuery.safeParse({ levels: '0' }).success).toBe(false);
  });
});

describe('levelSelectionContains', () => {
  const LEVELS = [0.5, 1, 2, 4, 8, 16, 64, 128];
  const shown = (text: string) => LEVELS.filter((l) => levelSelectionContains(parseLevelSelection(text), l));

  it('includes both ends of a range and takes an open end as unbounded', () => {
    expect(shown('4-64')).toEqual([4, 8, 16, 64]);
    expect(shown('16-')).toEqual([16, 64, 128]);
    expect(shown('-1')).toEqual([0.5, 1]);
  });

  it('shows exactly the levels of a list', () => {
    expect(shown('1,4,3')).toEqual([1, 4]);
  });

  it('shows every level without a selection', () => {
    expect(LEVELS.filter((l) => levelSelectionContains(null, l))).toEqual(LEVELS);
    expect(levelSelectionContains(undefined, 7)).toBe(true);
  });
});
