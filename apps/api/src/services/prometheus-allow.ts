import { hostname } from 'node:os';
import { z } from 'zod';

/**
 * Which Prometheus servers the API itself may query (issue 28's `POST /runs/{id}/server-metrics/prometheus`).
 * The API makes the request, so without a rule any caller with a write token could make it probe
 * any host its network reaches: it reads only the hosts KNEEBOARD_PROMETHEUS_ALLOW names.
 *
 * Entries, comma-separated: `host` (any port) or `host:port`; `loopback` (localhost, 127.0.0.0/8,
 * ::1); `self` (this machine's own name); `*` (any host: a deployment where every caller is trusted).
 * Unset: `loopback, self`. Names are matched as written in the URL, never resolved (a name that
 * resolves to an allowed address is not thereby allowed); redirects are refused by the reader.
 */
export const DEFAULT_PROMETHEUS_ALLOW = ['loopback', 'self'] as const;

const ENTRY = /^(\*|loopback|self|\[[0-9a-f:.]+\](:\d{1,5})?|[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?)$/;

/** The variable's value → its entries (lower case); unset or blank → the default. */
export const PrometheusAllowList = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? [...DEFAULT_PROMETHEUS_ALLOW] : v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '')))
  .pipe(z.array(z.string().regex(ENTRY, 'must be host, host:port, loopback, self or * (comma-separated), e.g. loopback,prom.lan:9090')));

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Whether the API may query `url` under `allow`; `self` is this machine's name (given in tests). */
export function prometheusAllowed(url: string, allow: readonly string[], self = hostname()): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const host = u.hostname.toLowerCase();
  const port = u.port !== '' ? u.port : u.protocol === 'https:' ? '443' : '80';
  return allow.some((entry) => {
    if (entry === '*') return true;
    if (entry === 'loopback') return isLoopback(host);
    if (entry === 'self') return host === self.toLowerCase();
    const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
    return m[1] === host && (m[2] === undefined || m[2] === port);
  });
}
