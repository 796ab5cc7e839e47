import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors.ts';
import { isLoopback, type AccessConfig } from './config.ts';

/** `[::1]:6400` → `[::1]`, `kb.lan:6400` → `kb.lan`: the name without its port. */
function nameOf(host: string): string {
  const bracket = /^(\[[^\]]*\])(:\d+)?$/.exec(host);
  if (bracket) return bracket[1] as string;
  const colon = host.lastIndexOf(':');
  return colon > 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}

/** The Host (and, through a proxy such as the dashboard's, X-Forwarded-Host) each name the site the browser thinks it is on. */
function addressed(headers: Record<string, string | string[] | undefined>): string[] {
  const hosts: string[] = [];
  for (const name of ['host', 'x-forwarded-host']) {
    const value = headers[name];
    for (const v of [value].flat()) for (const h of v?.split(',') ?? []) if (h.trim() !== '') hosts.push(h.trim().toLowerCase());
  }
  return hosts;
}

/**
 * An open server (no tokens: the laptop default) answers only requests addressed to a loopback
 * name — 127.0.0.1, localhost, [::1], any port — or to a name in KNEEBOARD_ALLOWED_HOSTS. A web
 * page can make its own name resolve to 127.0.0.1 (DNS rebinding); the browser then sends it as
 * Host and Origin, both "same-origin", and with no token to stop it the page could create, change
 * and read runs. The name it addressed is the one thing it cannot fake. Refused with 421 before
 * anything else is looked at. A server that requires tokens is not rebindable this way (a page
 * holds no token) and may sit behind any name.
 */
export function registerHostGuard(app: FastifyInstance, access: AccessConfig): void {
  if (access.mode !== 'open') return;
  const allowed = new Set(access.allowedHosts ?? []);
  const ok = (host: string) => isLoopback(nameOf(host)) || allowed.has(host) || allowed.has(nameOf(host));
  app.addHook('onRequest', async (req) => {
    const hosts = addressed(req.headers);
    const refused = hosts.length === 0 ? '(none)' : hosts.find((h) => !ok(h));
    if (refused === undefined) return;
    throw new HttpError(
      421,
      `this Kneeboard has no tokens and answers only loopback names (127.0.0.1, localhost, [::1]); it was addressed as ${JSON.stringify(refused)}. If that name is yours, list it in KNEEBOARD_ALLOWED_HOSTS (e.g. KNEEBOARD_ALLOWED_HOSTS=${nameOf(refused === '(none)' ? 'kb.lan' : refused)}), or require tokens (KNEEBOARD_AUTH=required)`,
      'host',
    );
  });
}
