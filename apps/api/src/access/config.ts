/**
 * Who may do what. `open`: anyone who can reach the API may do anything — the embedded default on
 * loopback, as before tokens existed. `required`: writes need a bearer token, and reads too when
 * `read` is `token`.
 */
export interface AccessConfig {
  mode: 'open' | 'required';
  read: 'public' | 'token';
  /** KNEEBOARD_ADMIN_TOKEN: the first admin token, stored hashed at start-up. */
  adminToken?: string | undefined;
  /** KNEEBOARD_ALLOWED_HOSTS: Host names an open server answers besides loopback ones (lower case; without a port: any port). */
  allowedHosts?: readonly string[] | undefined;
}

export const OPEN_ACCESS: AccessConfig = { mode: 'open', read: 'public' };

/** 127.0.0.0/8, ::1 and localhost: reachable from this machine only. 0.0.0.0 and :: are everything. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Tokens are required when asked for (KNEEBOARD_AUTH=required), the moment the API listens beyond
 * loopback, or when a token setting only makes sense with them (an admin token, token reads).
 */
export function resolveAccess(o: { auth: 'auto' | 'required'; host: string; adminToken?: string | undefined; read: 'public' | 'token'; allowedHosts?: readonly string[] }): AccessConfig {
  const required = o.auth === 'required' || !isLoopback(o.host) || o.adminToken !== undefined || o.read === 'token';
  return { mode: required ? 'required' : 'open', read: o.read, adminToken: o.adminToken, allowedHosts: o.allowedHosts ?? [] };
}
