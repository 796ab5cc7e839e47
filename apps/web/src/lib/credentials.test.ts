import { describe, expect, it } from 'vitest';
import { cookieOptions, credentialOf, isHttps, SESSION_COOKIE, SHARE_COOKIE, TokenText } from './credentials.ts';

const jar = (values: Record<string, string>) => ({ get: (name: string) => (name in values ? { value: values[name] as string } : undefined) });
const SESSION = 'kb_admin0001_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const SHARE = 'kb_share0001_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('which token the dashboard sends for a browser', () => {
  it("prefers the signed-in person's, then the dashboard's own, then a share link's", () => {
    expect(credentialOf(jar({ [SESSION_COOKIE]: SESSION, [SHARE_COOKIE]: SHARE }), 'env-token-0123456789abcdefghij')).toEqual({ kind: 'session', token: SESSION });
    expect(credentialOf(jar({ [SHARE_COOKIE]: SHARE }), 'env-token-0123456789abcdefghij')).toEqual({ kind: 'env', token: 'env-token-0123456789abcdefghij' });
    expect(credentialOf(jar({ [SHARE_COOKIE]: SHARE }), undefined)).toEqual({ kind: 'share', token: SHARE });
    expect(credentialOf(jar({}), undefined)).toEqual({ kind: 'none' });
  });

  it('ignores a cookie that is not a token (spaces, too short, header injection)', () => {
    for (const bad of ['short', 'kb_x_has space inside the secret', 'a'.repeat(23), `${SESSION}\r\nx-evil: 1`]) {
      expect(TokenText.safeParse(bad).success).toBe(false);
      expect(credentialOf(jar({ [SESSION_COOKIE]: bad, [SHARE_COOKIE]: bad }), undefined)).toEqual({ kind: 'none' });
    }
  });

  it('keeps both cookies from page scripts; the session Strict, the share link Lax; Secure behind https', () => {
    expect(cookieOptions('session', true)).toMatchObject({ httpOnly: true, sameSite: 'strict', secure: true });
    expect(cookieOptions('share', false)).toMatchObject({ httpOnly: true, sameSite: 'lax', secure: false });
    expect(isHttps(new Headers({ 'x-forwarded-proto': 'https, http' }))).toBe(true);
    expect(isHttps(new Headers(), new URL('http://127.0.0.1:3000/'))).toBe(false);
    expect(isHttps(new Headers(), new URL('https://kb.example/'))).toBe(true);
  });
});
