import { describe, expect, it } from 'vitest';
import { parseEnv } from '../src/env.ts';

describe('parseEnv', () => {
  it('allows no browser origin by default', () => {
    expect(parseEnv({}).corsOrigins).toEqual([]);
  });

  it('reads KNEEBOARD_CORS_ORIGINS as a list of origins', () => {
    expect(parseEnv({ KNEEBOARD_CORS_ORIGINS: ' https://a.example.com, http://b.example:8080 ,' }).corsOrigins).toEqual(['https://a.example.com', 'http://b.example:8080']);
  });

  it('refuses an origin with a path, a wildcard or another scheme, naming the variable', () => {
    for (const bad of ['https://a.example.com/app', '*', 'javascript:alert(1)']) {
      expect(() => parseEnv({ KNEEBOARD_CORS_ORIGINS: bad })).toThrow(/KNEEBOARD_CORS_ORIGINS/);
    }
  });
});
