/**
 * The headers every dashboard page is sent with. The Content-Security-Policy allows scripts only
 * by a per-request nonce (Next.js puts it on its own scripts), so a string that slipped through
 * escaping could still not run; styles may be inline (the charts set style attributes), images may
 * be data:/blob: (the PNG export draws the chart's SVG through one).
 */
export function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': scripts Next's nonce-bearing scripts load are trusted, nothing else. Dev
    // mode's hot reload evaluates code.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? ' ws:' : ''}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The rest of the standard set, the same on every response (pages and the /api proxy). */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Why a request to the /api proxy must not go on, or null. The proxy may add the dashboard's API
 * token, so it refuses itself what a hostile page could send through the user's browser: a write
 * from another site (Sec-Fetch-Site, or an Origin that is not the host the browser addressed), or a
 * write whose body is not JSON.
 */
export function refuseCrossSiteWrite(method: string, headers: Headers): string | null {
  if (!UNSAFE_METHODS.has(method.toUpperCase())) return null;
  const site = headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return `a ${site} ${method} is refused`;
  const origin = headers.get('origin');
  if (origin !== null) {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    const addressed = (headers.get('x-forwarded-host') ?? headers.get('host') ?? '').split(',')[0]?.trim();
    if (host === null || host !== addressed) return `a ${method} from ${origin} is refused`;
  }
  const type = headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== undefined && type !== 'application/json') return `a ${method} body must be application/json`;
  return null;
}
