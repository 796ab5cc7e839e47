import { describe, expect, it } from 'vitest';
import { filterOptions, parseRunsFilter, runsFilterQuery } from './runs-filter.ts';

describe('runs filter', () => {
  it('reads service and release from the query, ignoring blanks and repeats', () => {
    expect(parseRunsFilter({ service: ' checkout ', release: '' })).toEqual({ service: 'checkout' });
    expect(parseRunsFilter({ service: ['a', 'b'], release: 'v1', other: 'x' })).toEqual({ service: 'a', release: 'v1' });
    expect(parseRunsFilter({})).toEqual({});
  });

  it('writes a stable, encoded query', () => {
    expect(runsFilterQuery({})).toBe('');
    expect(runsFilterQuery({ release: 'v1 beta', service: 'a&b' })).toBe('?service=a%26b&release=v1+beta');
  });

  it('offers distinct sorted options that include the current choice', () => {
    expect(filterOptions(['b', 'a', 'b', ''], undefined)).toEqual(['a', 'b']);
    expect(filterOptions(['a'], 'z')).toEqual(['a', 'z']);
  });
});
