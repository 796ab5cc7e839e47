import { isIPv4, isIPv6 } from 'node:net';

/**
 * What the API's outbound allow-lists share (KNEEBOARD_PROMETHEUS_ALLOW, KNEEBOARD_WEBHOOK_ALLOW):
 * the syntax of a `host` / `host:port` entry, matching a URL against such an entry, and what kind
 * of network an IP address belongs to. The API makes those requests itself, so a caller with a write
 * token must not be able to aim them at the API's own neighbours (its ClickHouse, a cloud metadata
 * service, a router's admin page) and read back whether they answered.
 */

/** `host`, `host:port`, `[v6]`, `[v6]:port` — lower case, no scheme, no path. */
export const HOST_ENTRY = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)(:\d{1,5})?$/;

/** A comma list → its entries, trimmed and lower case (blank entries dropped). */
export const splitEntries = (v: string): string[] => v.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');

/** `url`'s host as the URL parser normalised it (IPv4 in any notation → dotted, IPv6 bracketed and compressed), and its port (the scheme's by default). */
export function hostAndPort(url: URL): { host: string; port: string } {
  return { host: url.hostname.toLowerCase().replace(/\.$/, ''), port: url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80' };
}

/** Whether a `host` or `host:port` entry names this host (and port, when it names one). */
export function entryMatches(entry: string, host: string, port: string): boolean {
  const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
  return normaliseHost(m[1]!) === host && (m[2] === undefined || m[2] === port);
}

/** An entry's host as a URL's hostname would show it (`[fd00::0001]` → `[fd00::1]`, `0x7f.1` → `127.0.0.1`). */
function normaliseHost(host: string): string {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return host;
  }
}

/** `localhost` and its subdomains (RFC 6761: they resolve to loopback), as written in a URL. */
export const isLoopbackName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/**
 * The kinds of address an allow-list tells apart. `public` is everything not listed here:
 * - loopback: 127.0.0.0/8, ::1
 * - private: RFC 1918 (10/8, 172.16/12, 192.168/16) and RFC 4193 unique-local (fc00::/7)
 * - link-local: 169.254.0.0/16 (cloud metadata services live there) and fe80::/10
 * - cgnat: 100.64.0.0/10 (RFC 6598 shared address space: a provider's or a tailnet's inside)
 * - unspecified: 0.0.0.0/8 and :: (Linux connects 0.0.0.0 to this machine)
 * - multicast: 224.0.0.0/4, ff00::/8
 * - reserved: 240.0.0.0/4 with the broadcast address, the deprecated IPv4-compatible ::/96 and site-local fec0::/10, discard 100::/64
 * IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16)
 * are the kind of that IPv4 address.
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'cgnat' | 'unspecified' | 'multicast' | 'reserved';

/** The kind of an IP address (`[v6]` brackets and a `%zone` allowed); null when it is not an IP address. */
export function classifyAddress(address: string): AddressKind | null {
  const ip = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(ip)) return classifyV4(ip.split('.').map(Number));
  if (isIPv6(ip)) return classifyV6(v6Words(ip));
  return null;
}

/** Whether the address is in the range `base/bits` (IPv4, as four octets). */
function inV4(o: number[], base: [number, number, number, number], bits: number): boolean {
  const n = ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0;
  const b = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((n & mask) >>> 0) === ((b & mask) >>> 0);
}

function classifyV4(o: number[]): AddressKind {
  if (inV4(o, [127, 0, 0, 0], 8)) return 'loopback';
  if (inV4(o, [10, 0, 0, 0], 8) || inV4(o, [172, 16, 0, 0], 12) || inV4(o, [192, 168, 0, 0], 16)) return 'private';
  if (inV4(o, [169, 254, 0, 0], 16)) return 'link-local';
  if (inV4(o, [100, 64, 0, 0], 10)) return 'cgnat';
  if (inV4(o, [0, 0, 0, 0], 8)) return 'unspecified';
  if (inV4(o, [224, 0, 0, 0], 4)) return 'multicast';
  if (inV4(o, [240, 0, 0, 0], 4)) return 'reserved';
  return 'public';
}

/** An IPv6 address → its eight 16-bit words (a dotted IPv4 tail counts as the last two). */
function v6Words(ip: string): number[] {
  let text = ip;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const o = tail[1]!.split('.').map(Number);
    text = `${text.slice(0, tail.index)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const words = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':').map((w) => parseInt(w, 16)));
  const h = words(head);
  if (rest === undefined) return h;
  const r = words(rest);
  return [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r];
}

function classifyV6(w: number[]): AddressKind {
  const v4 = (hi: number, lo: number) => classifyV4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && w[7] === 1) return 'loopback';
  if (zeros(0, 5) && w[5] === 0xffff) return v4(w[6]!, w[7]!);
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return v4(w[6]!, w[7]!);
  if (w[0] === 0x2002) return v4(w[1]!, w[2]!);
  if (zeros(0, 6)) return 'reserved';
  if (w[0] === 0x100 && zeros(1, 4)) return 'reserved';
  if ((w[0]! & 0xfe00) === 0xfc00) return 'private';
  if ((w[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((w[0]! & 0xffc0) === 0xfec0) return 'reserved';
  if ((w[0]! & 0xff00) === 0xff00) return 'multicast';
  return 'public';
}
