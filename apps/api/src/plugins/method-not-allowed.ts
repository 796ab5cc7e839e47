import type { FastifyInstance } from 'fastify';
import type { ApiError } from '@kneeboard/contracts';

interface KnownPath {
  pattern: RegExp;
  /** Characters of the path that are not parameters: the more, the more specific the route. */
  literal: number;
  methods: Set<string>;
}

/** `/runs/:id.png` → /^\/runs\/[^/]+?\.png$/: a route's path as a pattern over request paths. */
function patternOf(url: string): RegExp {
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/:[A-Za-z0-9_]+/g, '[^/]+?')}$`);
}

const literalOf = (url: string) => url.replace(/:[A-Za-z0-9_]+/g, '').length;

/**
 * A known path asked with a method it does not have answers 405 with an `Allow` header (RFC 9110),
 * not 404 or 400: the path exists, the method is what is wrong. That includes a path that a less
 * specific route happens to match (`PATCH /runs/{id}.png` is not a PATCH of a run named `….png`).
 * Decided in onRequest, before any body is read, so an unknown method with a body costs nothing.
 */
export function registerMethodNotAllowed(app: FastifyInstance): void {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const entry = known.get(route.url) ?? { pattern: patternOf(route.url), literal: literalOf(route.url), methods: new Set<string>() };
    for (const m of [route.method].flat()) entry.methods.add(m);
    known.set(route.url, entry);
  });
  app.addHook('onRequest', async (req, reply) => {
    const matched = req.routeOptions.url;
    // A catch-all route took it on purpose: the CORS preflight (OPTIONS on every path).
    if (matched?.includes('*')) return;
    const path = req.url.split('?')[0] ?? '';
    let best: KnownPath | undefined;
    for (const entry of known.values()) {
      if (entry.pattern.test(path) && (!best || entry.literal > best.literal)) best = entry;
    }
    // Unknown path (the 404 follows), or the method is the most specific route's own.
    if (!best || best.methods.has(req.method)) return;
    // A route matched and no more specific one exists: that route's own answer.
    if (matched !== undefined && literalOf(matched) >= best.literal) return;
    const allow = [...best.methods].sort().join(', ');
    const body: ApiError = { statusCode: 405, error: 'Method Not Allowed', message: `method: ${req.method} is not allowed here; allowed: ${allow}`, field: 'method' };
    return reply.code(405).header('allow', allow).send(body);
  });
}
