import { describe, expect, it } from 'vitest';
import { isLoopback, resolveAccess } from '../src/access/config.ts';
import { parseEnv } from '../src/env.ts';

describe('when tokens are required', () => {
  it('knows loopback hosts from the rest', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', 'kb.example.com', '128.0.0.1']) expect(isLoopback(h)).toBe(false);
  });

  it('leaves the embedded default open: loopback, no admin token, public reads', () => {
    expect(parseEnv({}).access).toEqual({ mode: 'open', read: 'public', adminToken: undefined, allowedHosts: [] });
  });

  it('requires tokens beyond loopback, when asked, with an admin token or with token reads', () => {
    expect(parseEnv({ HOST: '0.0.0.0' }).access.mode).toBe('required');
    expect(parseEnv({ KNEEBOARD_AUTH: 'required' }).access.mode).toBe('required');
    expect(parseEnv({ KNEEBOARD_ADMIN_TOKEN: 'a'.repeat(32) }).access).toEqual({ mode: 'required', read: 'public', adminToken: 'a'.repeat(32), allowedHosts: [] });
    expect(resolveAccess({ auth: 'auto', host: '127.0.0.1', read: 'token' }).mode).toBe('required');
  });

  it('treats an empty KNEEBOARD_ADMIN_TOKEN as unset and refuses a short one, naming the variable', () => {
    expect(parseEnv({ KNEEBOARD_ADMIN_TOKEN: ' ' }).access.adminToken).toBeUndefined();
    expect(() => parseEnv({ KNEEBOARD_ADMIN_TOKEN: 'short' })).toThrow(/KNEEBOARD_ADMIN_TOKEN/);
    expect(() => parseEnv({ KNEEBOARD_AUTH: 'off' })).toThrow(/KNEEBOARD_AUTH/);
    expect(() => parseEnv({ KNEEBOARD_READ: 'private' })).toThrow(/KNEEBOARD_READ/);
  });

  it('reads KNEEBOARD_ALLOWED_HOSTS as lower-case host names (a port optional) and refuses a URL, naming the variable', () => {
    expect(parseEnv({ KNEEBOARD_ALLOWED_HOSTS: ' KB.lan, kb.lan:8080,[::1]:6400 ' }).access.allowedHosts).toEqual(['kb.lan', 'kb.lan:8080', '[::1]:6400']);
    expect(() => parseEnv({ KNEEBOARD_ALLOWED_HOSTS: 'http://kb.lan' })).toThrow(/KNEEBOARD_ALLOWED_HOSTS/);
    expect(() => parseEnv({ KNEEBOARD_ALLOWED_HOSTS: 'kb.lan/x' })).toThrow(/KNEEBOARD_ALLOWED_HOSTS/);
  });
});
