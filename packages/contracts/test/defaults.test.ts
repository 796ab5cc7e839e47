import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_API_PORT, DEFAULT_API_URL, DEFAULT_DEMO_TARGET_PORT, DEFAULT_WEB_PORT, DEFAULT_WEB_URL } from '../src/defaults.ts';

describe('default ports and addresses (src/defaults.ts)', () => {
  it('are the ones the docs and users rely on', () => {
    expect([DEFAULT_API_PORT, DEFAULT_WEB_PORT, DEFAULT_DEMO_TARGET_PORT]).toEqual([4000, 3000, 4100]);
    expect(DEFAULT_API_URL).toBe('http://127.0.0.1:4000');
    expect(DEFAULT_WEB_URL).toBe('http://127.0.0.1:3000');
  });

  it('scripts/up.mjs, plain Node that cannot import them, keeps the same numbers', () => {
    const up = readFileSync(new URL('../../../scripts/up.mjs', import.meta.url), 'utf8');
    const fallback = (name: string) => Number(new RegExp(`env\\.${name} \\?\\? (\\d+)`).exec(up)?.[1]);
    expect(fallback('KNEEBOARD_API_PORT')).toBe(DEFAULT_API_PORT);
    expect(fallback('KNEEBOARD_WEB_PORT')).toBe(DEFAULT_WEB_PORT);
    expect(fallback('KNEEBOARD_DEMO_PORT')).toBe(DEFAULT_DEMO_TARGET_PORT);
  });
});
