import { readFileSync } from 'node:fs';
import type { TargetRequest, TargetTls } from '../load/target-client.ts';
import type { SweepConfig } from './config.ts';
import { SweepError } from './sweep-error.ts';

/** The request a sweep sends (and its readiness checks poll with), from the sweep's options. */
export function targetRequestOf(cfg: SweepConfig): TargetRequest {
  const target = new URL(cfg.target);
  return {
    path: cfg.request.path ?? target.pathname + target.search,
    method: cfg.request.method,
    headers: { 'user-agent': 'kneeboard-agent', ...cfg.request.headers },
    body: cfg.request.body,
    timeoutMs: cfg.request.timeoutMs,
    ...(target.protocol === 'https:' ? { tls: targetTlsOf(cfg) } : {}),
  };
}

/** --insecure / --ca-file, the CA file read once here (both engines get the same trust). */
function targetTlsOf(cfg: SweepConfig): TargetTls {
  if (cfg.caFile === undefined) return { insecure: cfg.insecure };
  let caPem: string;
  try {
    caPem = readFileSync(cfg.caFile, 'utf8');
  } catch (err) {
    throw new SweepError('config', `--ca-file: cannot read ${cfg.caFile} (${(err as Error).message})`);
  }
  if (!caPem.includes('-----BEGIN CERTIFICATE-----')) throw new SweepError('config', `--ca-file: ${cfg.caFile} holds no PEM certificate`);
  return { insecure: cfg.insecure, caFile: cfg.caFile, caPem };
}

/**
 * `--requests`: each request of the mix as the engines send it. The sweep's headers (`-H`, the
 * user-agent) come first and the entry's own win; timeout and TLS are the sweep's.
 */
export function mixRequestsOf(cfg: SweepConfig, base: TargetRequest): TargetRequest[] {
  return mixTargetRequests(cfg.requests?.requests ?? [], base);
}

/** Each request of a mix (the sweep's own, or a fleet plan's) on the base request: its headers under the entry's, its timeout and TLS. */
export function mixTargetRequests(entries: readonly { path: string; method: string; headers: Record<string, string>; body: string | undefined }[], base: TargetRequest): TargetRequest[] {
  return entries.map((r) => ({
    ...base,
    path: r.path,
    method: r.method,
    headers: { ...base.headers, ...r.headers },
    body: r.body,
  }));
}
