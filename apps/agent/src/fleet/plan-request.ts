import { FleetRequest } from '@kneeboard/contracts';
import type { SweepConfig } from '../sweep/config.ts';
import { SweepError } from '../sweep/sweep-error.ts';
import { targetRequestOf } from '../sweep/target-request.ts';

/** The flag behind each field of the plan's request, so a refusal names what the user typed. */
const FLAG_OF: Record<string, string> = {
  requests: '--requests',
  ca_pem: '--ca-file',
  body: '--body',
  headers: '-H',
  method: '--method',
  target: '--target',
  connections: '--connections',
};

/**
 * What every agent of the plan sends, from the coordinator's sweep options: everything an agent on
 * another host needs and nothing it could not use there. Files are read here — the mix (already
 * parsed by `--requests`) goes as its requests, a `--ca-file` as its PEM — never sent as paths.
 * Checked against the contract before any run is made: a refusal names the flag.
 */
export function planRequestOf(cfg: SweepConfig): FleetRequest {
  if (Buffer.isBuffer(cfg.request.body)) throw new SweepError('config', '--agents: a binary request body cannot be handed to other agents; use a text body');
  const target = new URL(cfg.target);
  if (cfg.request.path !== undefined) target.href = new URL(cfg.request.path, target.origin).href;
  // Reads the CA file once, with the sweep's own errors (unreadable, no PEM in it).
  const tls = targetRequestOf(cfg).tls;
  const input = {
    target: target.href,
    method: cfg.request.method,
    headers: cfg.request.headers,
    body: cfg.request.body ?? null,
    timeout_ms: cfg.request.timeoutMs,
    ...(cfg.requests ? { requests: cfg.requests.requests.map((r) => ({ name: r.name, method: r.method, path: r.path, headers: r.headers, body: r.body ?? null, weight: r.weight })) } : {}),
    http: cfg.http,
    ...(cfg.connections === undefined ? {} : { connections: cfg.connections }),
    insecure: tls?.insecure ?? false,
    ...(tls?.caPem === undefined ? {} : { ca_pem: tls.caPem }),
  };
  const parsed = FleetRequest.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? '');
    const where = issue.path.length > 1 ? ` (${issue.path.slice(1).map((p) => (typeof p === 'number' ? `entry ${p + 1}` : String(p))).join(' ')})` : '';
    throw new SweepError('config', `${FLAG_OF[field] ?? field} with --agents${where}: ${issue.message}`);
  }
  return parsed.data;
}
