import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { z } from 'zod';
import { classifyAddress, entryMatches, HOST_ENTRY, hostAndPort, isLoopbackName, splitEntries, type AddressKind } from '../host-allow.ts';

/**
 * Where webhooks may post (KNEEBOARD_WEBHOOK_ALLOW). The API makes the request and logs its status,
 * so without a rule a write token could aim a webhook at 127.0.0.1:6379, 169.254.169.254 or the
 * ClickHouse server's port and read the answer's status back: a request forger and a port scanner.
 *
 * Entries, comma-separated: `public` (any address that is not one of the kinds host-allow.ts sets
 * apart: loopback, private, link-local, CGNAT, unspecified, multicast, reserved), `loopback`
 * (127.0.0.0/8, ::1), `private` (10/8, 172.16/12, 192.168/16, fc00::/7), or a host — a name or an
 * IP literal, IPv6 in brackets — with or without `:port`, which is allowed whatever it resolves to.
 * Unset: `public` — a webhook is a chat service or a CI on the internet; a receiver on this machine
 * or the local network is opted into. Checked when a webhook is added (IP literals, `localhost`) and
 * again on every delivery on the address the name resolves to then (so a name that re-resolves to
 * 127.0.0.1 later is still refused). The sender follows no redirects.
 */
export const DEFAULT_WEBHOOK_ALLOW = ['public'] as const;

const KINDS = ['public', 'loopback', 'private'] as const satisfies readonly AddressKind[];
const isKind = (e: string): e is (typeof KINDS)[number] => (KINDS as readonly string[]).includes(e);

/** The variable's value → its entries (lower case); unset or blank → the default. */
export const WebhookAllowList = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? [...DEFAULT_WEBHOOK_ALLOW] : splitEntries(v)))
  .pipe(z.array(z.string().refine((e) => isKind(e) || HOST_ENTRY.test(e), 'must be public, loopback, private, host or host:port (IPv6 in brackets), comma-separated, e.g. public,hooks.lan:8080')));

/** What a refusal says: the variable that would allow it, never anything learnt from the target. */
function refusedBecause(what: string, allow: readonly string[]): string {
  return `webhooks may not post to ${what}: KNEEBOARD_WEBHOOK_ALLOW names where they may (now: ${allow.join(', ')})`;
}

const KIND_NAMES: Record<AddressKind, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  cgnat: 'a shared (CGNAT) address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** How a name is resolved: the system's resolver (dns.lookup with `all`), or a test's. */
export type Resolve = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** An allow-list, applied to a webhook's URL when it is added and to each address it resolves to when it is sent. */
export class WebhookAllow {
  readonly #kinds: ReadonlySet<AddressKind>;
  readonly #hosts: string[];

  constructor(readonly entries: readonly string[]) {
    this.#kinds = new Set(entries.filter(isKind));
    this.#hosts = entries.filter((e) => !isKind(e));
  }

  /** Whether the URL's host (and port) is one the list names: then any address it resolves to is allowed. */
  named(url: URL): boolean {
    const { host, port } = hostAndPort(url);
    return this.#hosts.some((entry) => entryMatches(entry, host, port));
  }

  /** Why `url` may not be registered, or null. An IP literal is judged here; a name only when it is `localhost` — others when sent. */
  refusal(url: URL): string | null {
    if (this.named(url)) return null;
    const { host } = hostAndPort(url);
    const kind = classifyAddress(host) ?? (isLoopbackName(host) ? 'loopback' : null);
    if (kind !== null) return this.#kinds.has(kind) ? null : refusedBecause(`${host} (${KIND_NAMES[kind]})`, this.entries);
    // Any other name may resolve anywhere: allowed to register if some kind of address is, judged on each delivery.
    return this.#kinds.size > 0 ? null : refusedBecause(`${host} (not a host it names)`, this.entries);
  }

  /** Whether a resolved address may be connected to. */
  addressAllowed(address: string): boolean {
    const kind = classifyAddress(address);
    return kind !== null && this.#kinds.has(kind);
  }

  /**
   * A `lookup` for the connection (node:net calls it with the name being connected to): resolves
   * as the system does, then refuses — with an error coded EWEBHOOKREFUSED — unless every address
   * the name has is allowed, so the check is on the address actually connected to. Unchecked
   * (`check` false) for a host the list names: it is allowed whatever it resolves to.
   */
  guardedLookup(resolve: Resolve = dnsLookup, check = true): LookupFunction {
    return (hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
      resolve(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '');
        if (check && (addresses.length === 0 || !addresses.every((a) => this.addressAllowed(a.address)))) return callback(new WebhookRefused(), '');
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
  }
}

/** A delivery the allow-list stopped before any connection: logged as such, with nothing about the target. */
export class WebhookRefused extends Error {
  readonly code = 'EWEBHOOKREFUSED';
  constructor() {
    super('refused: the address is not one KNEEBOARD_WEBHOOK_ALLOW allows (nothing was sent)');
    this.name = 'WebhookRefused';
  }
}
