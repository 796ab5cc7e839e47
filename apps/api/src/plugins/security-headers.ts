import type { FastifyInstance } from 'fastify';

/**
 * The API answers JSON, SVG, CSV, Markdown and event streams — never an HTML page. So one strict
 * policy fits every response: no script, no plugin, no frame, a sandboxed document (an SVG opened
 * on its own cannot run anything even if a string slipped through escaping), no sniffing of types,
 * no referrer. Set by hand rather than with @fastify/helmet: it is six fixed headers, and helmet's
 * defaults are written for HTML apps (its Cross-Origin-Resource-Policy `same-origin` would break
 * the `<img>` embeds of curve.svg in pull requests and wikis).
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // Inline styles: the charts' SVG styles its text with a <style> element.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (_req, reply) => {
    void reply.headers(API_SECURITY_HEADERS);
  });
}
