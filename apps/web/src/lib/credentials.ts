/**
 * Which token the dashboard's server sends to the API for this browser. The token lives in an
 * httpOnly cookie the Next.js server set — never in page JavaScript, never in a URL after the first
 * request — and the server adds it as `Authorization: Bearer` (pages' reads, and the /api proxy).
 *
 * - `kb_session`: a token a person pasted on /tokens (admin). SameSite=Strict: no other site can
 *   make the browser send it, so no cross-site request acts as that person.
 * - `kb_share`: the share token of the last share link opened (`?share=`, moved into the cookie by
 *   proxy.ts). SameSite=Lax, as a share link is opened from another site (a pull request, a chat)
 *   and a Strict cookie set during that navigation would not come back on it. It can only read
 *   its own runs, so a cross-site GET carrying it reveals nothing new.
 * - `KNEEBOARD_API_TOKEN`: the dashboard's own token, for everyone who can open it.
 */
import { z } from 'zod';

export const SESSION_COOKIE = 'kb_session';
export const SHARE_COOKIE = 'kb_share';

/**
 * A token as it may be pasted or carried: `kb_<id>_<secret>` from `newToken`, or an operator's own
 * KNEEBOARD_ADMIN_TOKEN (at least 24 printable characters, no spaces). Anything else is not sent on.
 */
export const TokenText = z.string().regex(/^[\x21-\x7e]{24,200}$/, 'is not a token (24 to 200 printable characters, no spaces)');

/** The admin session ends after this long; a pasted token is not kept for good. */
export const SESSION_MAX_AGE_S = 8 * 3600;
/** The share cookie lasts no longer than a link is likely to be followed; the token's own expiry still decides. */
export const SHARE_MAX_AGE_S = 30 * 24 * 3600;

export interface CookieReader {
  get(name: string): { value: string } | undefined;
}

export type Credential = { kind: 'session' | 'env' | 'share'; token: string } | { kind: 'none' };

/** The person's own token first, then the dashboard's, then a share link's. */
export function credentialOf(cookies: CookieReader, envToken: string | undefined): Credential {
  const session = cookies.get(SESSION_COOKIE)?.value;
  if (session && TokenText.safeParse(session).success) return { kind: 'session', token: session };
  if (envToken) return { kind: 'env', token: envToken };
  const share = cookies.get(SHARE_COOKIE)?.value;
  if (share && TokenText.safeParse(share).success) return { kind: 'share', token: share };
  return { kind: 'none' };
}

/** Cookie attributes: httpOnly always; Secure when the browser reached us over https (a TLS proxy in front). */
export function cookieOptions(kind: 'session' | 'share', https: boolean) {
  return {
    httpOnly: true,
    secure: https,
    sameSite: kind === 'session' ? ('strict' as const) : ('lax' as const),
    path: '/',
    maxAge: kind === 'session' ? SESSION_MAX_AGE_S : SHARE_MAX_AGE_S,
  };
}

/** Whether the browser's request came over https, directly or through a reverse proxy that says so. */
export function isHttps(headers: { get(name: string): string | null }, url?: URL): boolean {
  const forwarded = headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === 'https';
  return url?.protocol === 'https:';
}
