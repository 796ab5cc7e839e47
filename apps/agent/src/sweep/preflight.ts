import { ApiHttpError, describeCause, type KneeboardApi, type ServerTimingParser } from '@kneeboard/agent-sdk';
import { isSuccessStatus } from '@kneeboard/contracts';
import { FD_RESERVE, openFileLimit } from '../load/fd-limit.ts';
import { createTargetPool, fire, isUntrustedCertificate, UNTRUSTED_CERTIFICATE, type Completion, type TargetRequest } from '../load/target-client.ts';
import { loadAt, type SweepConfig } from './config.ts';
import { SweepError } from './sweep-error.ts';

/** GET /healthz once, so a missing API is reported before any load is sent. */
export async function checkApi(api: KneeboardApi): Promise<void> {
  try {
    await api.health();
  } catch (err) {
    if (err instanceof ApiHttpError) {
      throw new SweepError('api-unreachable', `the Kneeboard API at ${api.baseUrl} answered ${err.status} to GET /healthz: it is not ready.`, { cause: err });
    }
    throw new SweepError(
      'api-unreachable',
      `cannot reach the Kneeboard API at ${api.baseUrl} (${describeCause(err)}). Is it running? Start everything with \`./scripts/start.sh\`, or pass --api <url>.`,
      { cause: err },
    );
  }
}

/**
 * Every connection is a file descriptor: a closed loop that cannot open `c` of them would silently
 * run at fewer (and fail with EMFILE), so it is refused up front with the fix. The open loop's
 * connection bound is lowered to what the limit allows instead, with a warning: the sends beyond it
 * then show up as late or missed.
 */
export function checkOpenFiles(cfg: SweepConfig, warn: (m: string) => void, limit = openFileLimit()): number {
  if (limit === null || limit === Infinity) return cfg.maxConnections;
  const room = limit - FD_RESERVE;
  if (cfg.loadModel === 'closed') {
    const need = Math.max(...cfg.levels.map((l) => Math.min(loadAt(cfg, l), cfg.maxConnections)));
    if (need > room) {
      throw new SweepError(
        'config',
        `concurrency ${need} needs ${need + FD_RESERVE} open files but the limit (ulimit -n) is ${limit}: ` +
          `raise it first (e.g. \`ulimit -n ${Math.max(65_535, need + FD_RESERVE)}\` in the shell that starts the agent) or lower the levels.`,
      );
    }
    return cfg.maxConnections;
  }
  if (cfg.maxConnections > room) {
    warn(`--max-connections ${cfg.maxConnections} is above what the open-file limit (ulimit -n ${limit}) allows: using ${room}. Raise the limit for more.`);
    return Math.max(1, room);
  }
  return cfg.maxConnections;
}

/** One request exactly as the sweep will send it; an error status or no answer stops the sweep before it starts. */
export async function probeTarget(target: URL, request: TargetRequest, parseTiming: ServerTimingParser, send = sendOnce): Promise<Completion> {
  const outcome = await send(target.origin, request, parseTiming);
  if (outcome.status === 0 && isUntrustedCertificate(outcome.errorKind)) {
    throw new SweepError('target-unreachable', `${UNTRUSTED_CERTIFICATE} (the target at ${target.href} answered with a certificate the system's roots do not vouch for: ${outcome.errorKind})`);
  }
  if (outcome.status === 0) {
    throw new SweepError(
      'target-unreachable',
      `cannot reach the target at ${target.href} (${outcome.errorKind}). Is it running? ` +
        'The demo target starts with `pnpm --filter @kneeboard/demo-target start`.',
    );
  }
  if (!isSuccessStatus(outcome.status)) {
    throw new SweepError(
      'target-rejected',
      `the target at ${target.href} answered ${outcome.status} to ${request.method}: every request of the sweep would be an error. ` +
        'Check the URL, method, headers and body.',
    );
  }
  return outcome;
}

/** One request on its own short-lived connection. */
export async function sendOnce(origin: string, request: TargetRequest, parseTiming: ServerTimingParser): Promise<Completion> {
  const pool = createTargetPool(origin, 1, request.timeoutMs, request.tls);
  try {
    return await new Promise<Completion>((resolve) => fire(pool, request, parseTiming, { onSent: () => {}, onDone: resolve }));
  } finally {
    await pool.close();
  }
}
