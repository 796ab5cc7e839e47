import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { AccessConfig } from '../access/config.ts';
import { HttpError } from '../errors.ts';
import { clientKey } from './client-key.ts';
import { LIMIT_VARS, type Limits } from './limits.ts';

/**
 * Requests per minute per client, in memory (one budget per API process). Checked in preParsing:
 * after the token check (onRequest), so the key is the authenticated token, and before the body
 * is read, so a client over its budget costs no parsing. Health probes are not counted.
 * Only on a shared server (tokens required): the open loopback default has one user, whose own
 * agents and tests may post far more than a team member's share.
 */
export async function registerRateLimit(app: FastifyInstance, limits: Limits, access: AccessConfig): Promise<void> {
  if (limits.rateMax <= 0 || access.mode === 'open') return;
  await app.register(rateLimit, {
    global: true,
    hook: 'preParsing',
    max: limits.rateMax,
    timeWindow: limits.rateWindowMs,
    keyGenerator: clientKey,
    allowList: (req) => req.url === '/healthz' || req.url === '/readyz',
    errorResponseBuilder: (_req, ctx) =>
      new HttpError(
        429,
        `rate limit: at most ${ctx.max} requests per ${limits.rateWindowMs / 1000} s per client (${LIMIT_VARS.rateMax}); try again in ${ctx.after}`,
        'rate',
        undefined,
        Math.max(1, Math.ceil(ctx.ttl / 1000)),
      ),
  });
}
