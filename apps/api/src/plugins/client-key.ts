import type { FastifyRequest } from 'fastify';

/**
 * Who a request counts against for rate and stream limits: its token once authenticated (agents
 * on one NAT keep separate budgets; a token used from many hosts shares one), else its address.
 * An unchecked Authorization header is never the key, or sending a fresh random one per request
 * would escape every limit.
 */
export function clientKey(req: FastifyRequest): string {
  return req.token ? `token:${req.token.id}` : `ip:${req.ip}`;
}
