/**
 * Same-origin API: the browser calls `/api/…` on the dashboard's own origin and this forwards it to
 * `KNEEBOARD_API_URL`. A rewrite in next.config.ts would be frozen into the build's routes manifest;
 * doing it here reads the variable at request time, so one build runs against any API.
 */
import { NextResponse, type NextRequest } from 'next/server';
import { serverEnv } from './lib/env.ts';

export function proxy(request: NextRequest): NextResponse {
  // Concatenated, not resolved, so an API mounted under a path prefix keeps it.
  const target = new URL(`${serverEnv().KNEEBOARD_API_URL}${request.nextUrl.pathname}${request.nextUrl.search}`);
  if (request.nextUrl.pathname.endsWith('/live')) {
    // An event stream must reach the browser event by event. `next start` gzips proxied responses
    // and gzip holds small writes back until the stream ends; a request that accepts no encoding is
    // sent uncompressed, by the API and by Next alike.
    const headers = new Headers(request.headers);
    headers.delete('accept-encoding');
    return NextResponse.rewrite(target, { request: { headers } });
  }
  return NextResponse.rewrite(target);
}

export const config = { matcher: '/api/:path*' };
