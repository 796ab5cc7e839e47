import { hostname } from 'node:os';
import { z } from 'zod';
import { classifyAddress, entryMatches, HOST_ENTRY, hostAndPort, isLoopbackName, splitEntries } from './host-allow.ts';

/**
 * Which Prometheus servers the API itself may query (issue 28's `POST /runs/{id}/server-metrics/prometheus`).
 * The API makes the request, so without a rule any caller with a write token could make it probe
 * any host its network reaches: it reads only the hosts KNEEBOARD_PROMETHEUS_ALLOW names.
 *
 * Entries, comma-separated: `host` (any port) or `host:port`; `loopback` (localhost, 127.0.0.0/8,
 * ::1); `self` (this machine's own name); `*` (any host: a deployment where every caller is trusted).
 * Unset: `loopback, self`. Names are matched as written in the URL, never resolved (a name that
 * resolves to an allowed address is not thereby allowed); redirects are refused by the reader.
 * The entry syntax and the address kinds are shared with the webhooks' list (host-allow.ts).
 */
export const DEFAULT_PROMETHEUS_ALLOW = ['loopback', 'self'] as const;

const isEntry = (e: string) => e === '*' || e === 'loopback' || e === 'self' || HOST_ENTRY.test(e);

/** The variable's value → its entries (lower case); unset or blank → the default. */
export const PrometheusAllowList = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? [...DEFAULT_PROMETHEUS_ALLOW] : splitEntries(v)))
  .pipe(z.array(z.string().refine(isEntry, 'must be host, host:port, loopback, self or * (comma-separated), e.g. loopback,prom.lan:9090')));

/** Whether the API may query `url` under `allow`; `self` is this machine's name (given in tests). */
export function prometheusAllowed(url: string, allow: readonly string[], self = hostname()): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const { host, port } = hostAndPort(u);
  return allow.some((entry) => {
    if (entry === '*') return true;
    if (entry === 'loopback') return isLoopbackName(host) || classifyAddress(host) === 'loopback';
    if (entry === 'self') return host === self.toLowerCase();
    return entryMatches(entry, host, port);
  });
}
