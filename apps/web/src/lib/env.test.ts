import { describe, expect, it } from 'vitest';
import { parseServerEnv } from './env.ts';

describe('server env', () => {
  it('defaults to the local API', () => {
    expect(parseServerEnv({}).KNEEBOARD_API_URL).toBe('http://127.0.0.1:4000');
    expect(parseServerEnv({ KNEEBOARD_API_URL: '  ' }).KNEEBOARD_API_URL).toBe('http://127.0.0.1:4000');
  });

  it('drops a trailing slash', () => {
    expect(parseServerEnv({ KNEEBOARD_API_URL: 'http://api.internal:8080/' }).KNEEBOARD_API_URL).toBe('http://api.internal:8080');
  });

  it('names the variable when the value is wrong', () => {
    expect(() => parseServerEnv({ KNEEBOARD_API_URL: '127.0.0.1:4000' })).toThrow(/KNEEBOARD_API_URL/);
    expect(() => parseServerEnv({ KNEEBOARD_API_URL: 'ftp://x' })).toThrow(/KNEEBOARD_API_URL.*http/);
  });

  it('takes an optional API token, and never echoes it in an error', () => {
    expect(parseServerEnv({}).KNEEBOARD_API_TOKEN).toBeUndefined();
    expect(parseServerEnv({ KNEEBOARD_API_TOKEN: ' kb_abc_def ' }).KNEEBOARD_API_TOKEN).toBe('kb_abc_def');
    expect(() => parseServerEnv({ KNEEBOARD_API_TOKEN: 'secret with spaces' })).toThrow(/KNEEBOARD_API_TOKEN/);
    expect(() => parseServerEnv({ KNEEBOARD_API_TOKEN: 'secret with spaces' })).not.toThrow(/secret/);
  });
});
