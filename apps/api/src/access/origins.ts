/**
 * Which browser origins may talk to the API. None by default: the dashboard reaches the API through
 * its own same-origin proxy, and an embedded SVG or PNG is an <img>, which needs no CORS at all.
 */

/** `https://kb.example.com` → `kb.example.com`; the default port is dropped, as in a Host header. */
function hostOf(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** The host a browser addressed: a reverse proxy or the dashboard's proxy passes it as X-Forwarded-Host. */
function addressedHosts(headers: Record<string, string | string[] | undefined>): string[] {
  const hosts: string[] = [];
  for (const name of ['host', 'x-forwarded-host']) {
    const value = headers[name];
    const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim().toLowerCase();
    if (first) hosts.push(first);
  }
  return hosts;
}

export class OriginPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.allowed = new Set(origins.map((o) => o.toLowerCase()));
  }

  /** An origin listed in KNEEBOARD_CORS_ORIGINS: it gets CORS headers. */
  listed(origin: string): boolean {
    return this.allowed.has(origin.toLowerCase());
  }

  /**
   * Whether a request carrying this Origin may change anything: a listed origin, or the page's own
   * origin (the host the browser addressed). A browser sends Origin on every cross-origin POST,
   * form or fetch, `no-cors` included, and a page cannot forge it; "null" (sandboxed frames,
   * file://) is never allowed.
   */
  mayWrite(origin: string, headers: Record<string, string | string[] | undefined>): boolean {
    if (this.listed(origin)) return true;
    const host = hostOf(origin);
    return host !== null && addressedHosts(headers).includes(host);
  }
}
