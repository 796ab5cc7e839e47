/**
 * Runs before every page and API call:
 * - pages get a per-request CSP nonce (Next.js applies it to its own scripts) and the standard
 *   security headers;
 * - `/api/…` is forwarded to `KNEEBOARD_API_URL` (same origin for the browser). A rewrite in
 *   next.config.ts would be frozen into the build's routes manifest; doing it here reads the
 *   variable at request time, so one build runs against any API. With `KNEEBOARD_API_TOKEN` set,
 *   the proxy sends it to the API — after refusing writes a hostile page could send through the
 *   user's browser.
 */
import { bearer } from '@kneeboard/api-client';
import { NextResponse, type NextRequest } from 'next/server';
import { cookieOptions, credentialOf, isHttps, SHARE_COOKIE, TokenText } from './lib/credentials.ts';
import { serverEnv } from './lib/env.ts';
import { contentSecurityPolicy, refuseCrossSiteWrite, STATIC_SECURITY_HEADERS } from './lib/security-headers.ts';

function withStaticHeaders(res: NextResponse): NextResponse {
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) res.headers.set(name, value);
  return res;
}

function proxyApi(request: NextRequest): NextResponse {
  const refused = refuseCrossSiteWrite(request.method, request.headers);
  if (refused) return withStaticHeaders(NextResponse.json({ statusCode: 403, error: 'Forbidden', message: refused, field: 'origin' }, { status: 403 }));
  const { KNEEBOARD_API_URL, KNEEBOARD_API_TOKEN } = serverEnv();
  // Concatenated, not resolved, so an API mounted under a path prefix keeps it.
  const target = new URL(`${KNEEBOARD_API_URL}${request.nextUrl.pathname}${request.nextUrl.search}`);
  const headers = new Headers(request.headers);
  const credential = credentialOf(request.cookies, KNEEBOARD_API_TOKEN);
  if (credential.kind !== 'none' && !headers.has('authorization')) headers.set('authorization', bearer(credential.token));
  // The API has no use for the dashboard's cookies (and must not see the session's token twice).
  headers.delete('cookie');
  // An event stream must reach the browser event by event. `next start` gzips proxied responses
  // and gzip holds small writes back until the stream ends; a request that accepts no encoding is
  // sent uncompressed, by the API and by Next alike.
  if (request.nextUrl.pathname.endsWith('/live')) headers.delete('accept-encoding');
  return NextResponse.rewrite(target, { request: { headers } });
}

/**
 * A share link (`/runs/{id}?share=kb_…`): the token moves into an httpOnly cookie and the browser
 * is sent to the same page without it, so the secret leaves the address bar, the history and any
 * Referer at once, and never reaches the app's logs again.
 */
function acceptShareLink(request: NextRequest): NextResponse | null {
  const share = request.nextUrl.searchParams.get('share');
  if (share === null) return null;
  const clean = new URLSearchParams(request.nextUrl.search);
  clean.delete('share');
  const query = clean.toString();
  // One leading slash: `//evil.example/…` as a Location would leave the site.
  const path = `/${request.nextUrl.pathname.replace(/^[/\\]+/, '')}`;
  // The scheme and host the browser used (a TLS proxy in front says https; Host is kept as sent).
  const origin = `${isHttps(request.headers, request.nextUrl) ? 'https' : 'http'}://${request.headers.get('host') ?? request.nextUrl.host}`;
  const res = withStaticHeaders(NextResponse.redirect(new URL(`${path}${query ? `?${query}` : ''}`, origin), 303));
  res.headers.set('cache-control', 'no-store');
  if (TokenText.safeParse(share).success) res.cookies.set(SHARE_COOKIE, share, cookieOptions('share', isHttps(request.headers, request.nextUrl)));
  return res;
}

export function proxy(request: NextRequest): NextResponse {
  if (request.nextUrl.pathname.startsWith('/api/')) return proxyApi(request);
  const shared = acceptShareLink(request);
  if (shared) return shared;
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  // A not-found page gets no search params from Next; this lets the comparison's say what the link named.
  headers.set('x-kb-search', request.nextUrl.search);
  // Next.js reads the nonce from the request's CSP and puts it on the scripts it renders.
  headers.set('content-security-policy', csp);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set('content-security-policy', csp);
  return withStaticHeaders(res);
}

// Everything but the build's static files (hashed, served by Next with their own headers).
export const config = { matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'] };
