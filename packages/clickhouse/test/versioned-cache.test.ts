import { describe, expect, it } from 'vitest';
import { VersionedCache } from '../src/versioned-cache.ts';

describe('VersionedCache', () => {
  it('answers only for the version a value was kept with', () => {
    const c = new VersionedCache<number>(4);
    c.set('run', 'v1', 1);
    expect(c.get('run', 'v1')).toBe(1);
    expect(c.get('run', 'v2')).toBeUndefined();
    c.set('run', 'v2', 2);
    expect(c.get('run', 'v1')).toBeUndefined();
    expect(c.get('run', 'v2')).toBe(2);
  });

  it('drops the least recently used key beyond its bound', () => {
    const c = new VersionedCache<string>(2);
    c.set('a', 'v', 'A');
    c.set('b', 'v', 'B');
    expect(c.get('a', 'v')).toBe('A'); // a is now the most recently used
    c.set('c', 'v', 'C');
    expect(c.size).toBe(2);
    expect(c.get('b', 'v')).toBeUndefined();
    expect(c.get('a', 'v')).toBe('A');
    expect(c.get('c', 'v')).toBe('C');
  });
});
