import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getRun, type Db, type TokenRow } from '@kneeboard/clickhouse';
import { ENDPOINTS, type EndpointSpec } from '@kneeboard/contracts';
import { HttpError, notFound } from '../errors.ts';
import { runStatusOf } from './run-status.ts';
import type { AccessConfig } from './config.ts';
import type { TokenStore } from './token-store.ts';

/** What a request needs, from its route's row in the endpoint table (contracts: each row's `scope`). */
type Need = 'none' | 'read' | 'ingest' | 'write' | 'admin' | 'share-create';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

function needOf(method: string, ep: EndpointSpec | undefined): Need {
  // Health, the OpenAPI document, the CORS preflight and unknown routes (a 404 follows; nothing is read or written).
  if (ep === undefined || ep.scope === 'public' || method === 'OPTIONS') return 'none';
  // A GET the table gives to ingest tokens is still a read (public when reads are).
  if (ep.scope === 'ingest' || ep.scope === 'read') return SAFE.has(method) ? 'read' : ep.scope === 'ingest' ? 'ingest' : 'write';
  return ep.scope;
}

/** Every run id a comparison's query names (`base` and `head`, each a comma-separated group). */
function comparedRuns(query: unknown): string[] {
  const q = (query ?? {}) as Record<string, unknown>;
  return ['base', 'head'].flatMap((k) => [q[k]].flat()).filter((v): v is string => typeof v === 'string').flatMap((v) => v.split(',').map((id) => id.trim().toLowerCase()));
}

/** A share token reads its own runs' views only (the table's `share` rows): no list, no other run, no write. */
function shareAllows(token: TokenRow, req: FastifyRequest, ep: EndpointSpec): boolean {
  if (!SAFE.has(req.method)) return false;
  const runs = new Set(token.runs.map((r) => r.toLowerCase()));
  if (ep.share === 'run') return runs.has(String((req.params as { id?: unknown }).id ?? '').toLowerCase());
  if (ep.share === 'compare') {
    const ids = comparedRuns(req.query);
    return ids.length > 0 && ids.every((id) => runs.has(id));
  }
  return false;
}

/**
 * An ingest token calls the agent's endpoints only (scope `ingest`), and of reads only those the
 * table gives it: its run's status (GET /runs/:id answers the run record alone, see run-status.ts)
 * and its fleet plan's progress — what an agent and a coordinator poll. Not the run's agents,
 * curve, analysis or anything else.
 */
function allows(token: TokenRow, need: Need, req: FastifyRequest, ep: EndpointSpec): boolean {
  if (token.scope === 'admin') return true;
  if (token.scope === 'write') return need !== 'admin' && !(need === 'share-create' && token.service !== '');
  if (token.scope === 'share') return shareAllows(token, req, ep);
  // Not a HEAD of its reads: the run-status answer below is the GET's.
  return ep.scope === 'ingest' && req.method === ep.method;
}

/** The table's row of the route a request matched (routes are registered from it: routes/endpoint-route.ts). */
const endpointOf = (req: FastifyRequest): EndpointSpec | undefined => req.routeOptions.config.endpoint;

declare module 'fastify' {
  interface FastifyRequest {
    /** The token this request was authenticated with, when it carried one. */
    token?: TokenRow;
  }
}

/**
 * The token a request carries: `Authorization: Bearer`, or for a read `?share=` — what an `<img>`
 * embed or a link in a pull request can carry, as no header can be added there.
 */
function bearerOf(req: FastifyRequest): { secret: string; inUrl: boolean } | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (match) return { secret: match[1] as string, inUrl: false };
  const share = SAFE.has(req.method) ? (req.query as Record<string, unknown> | undefined)?.share : undefined;
  return typeof share === 'string' && share !== '' ? { secret: share, inUrl: true } : undefined;
}

const unauthorized = (message: string) => new HttpError(401, message, 'authorization');

/**
 * `?share=` takes share tokens only. A URL ends up in access logs, browser history and Referer
 * headers; a share token can only read the runs it names, any other token could do far more.
 */
const notShareToken = (token: TokenRow) =>
  new HttpError(403, `?share= takes share tokens only, and this is a ${token.scope} token: send it as Authorization: Bearer <token> instead (it has been in a URL now: consider revoking it)`, 'querystring.share');

/** Runs are few and their service never changes: remember it rather than ask storage per batch. */
class RunServices {
  private readonly known = new Map<string, string>();
  constructor(private readonly db: Db) {}
  async of(runId: string): Promise<string | null> {
    const hit = this.known.get(runId);
    if (hit !== undefined) return hit;
    const run = await getRun(this.db, runId);
    if (!run) return null;
    if (this.known.size >= 10_000) this.known.clear();
    this.known.set(runId, run.service);
    return run.service;
  }
}

/**
 * Bearer tokens, checked before the body is read (401 without one, 403 for a scope that does not
 * cover the route) and, for a token limited to a service, before the handler runs (403 for another
 * service's run). A refused request writes nothing. In open mode nothing is checked.
 */
export function registerAuth(app: FastifyInstance, access: AccessConfig, tokens: TokenStore, db: Db): void {
  if (access.mode === 'open') return;
  const services = new RunServices(db);

  app.addHook('onRequest', async (req, reply) => {
    const url = req.routeOptions.url;
    const ep = endpointOf(req);
    const need = needOf(req.method, ep);
    if (need === 'none') return;
    const credential = bearerOf(req);
    // Public reads stay public whatever token comes along (an agent's ingest token, say) — but a
    // live token of another scope in ?share= is refused, so its owner learns it leaked into a URL.
    if (need === 'read' && access.read === 'public') {
      const token = credential?.inUrl ? await tokens.verify(credential.secret) : null;
      if (token && token.scope !== 'share') throw notShareToken(token);
      return;
    }
    void reply.header('www-authenticate', 'Bearer realm="kneeboard"');
    if (credential === undefined) throw unauthorized(need === 'read' ? 'reads need a token here (KNEEBOARD_READ=token): send Authorization: Bearer <token>' : 'this needs a token: send Authorization: Bearer <token>');
    const token = await tokens.verify(credential.secret);
    if (!token) throw unauthorized('unknown, revoked or expired token');
    if (credential.inUrl && token.scope !== 'share') throw notShareToken(token);
    if (!allows(token, need, req, ep as EndpointSpec)) throw new HttpError(403, `a ${token.scope} token cannot ${req.method} ${url}`, 'authorization');
    req.token = token;
  });

  app.addHook('preHandler', async (req) => {
    const token = req.token;
    const ep = endpointOf(req);
    // The body is parsed by now: a write token creates share tokens, nothing more powerful.
    if (token?.scope === 'write' && ep?.scope === 'share-create' && (req.body as { scope?: string } | undefined)?.scope !== 'share') {
      throw new HttpError(403, 'a write token can create share tokens only', 'authorization');
    }
    // Reads by service are not limited yet, except an ingest token's (its run's status, its own service's runs).
    if (!token || token.service === '' || (SAFE.has(req.method) && token.scope !== 'ingest')) return;
    let service: string | null = null;
    if (ep?.service === 'body') service = (req.body as { service?: string } | undefined)?.service ?? null;
    else if (ep?.service === 'run') service = await services.of((req.params as { id: string }).id);
    else if (ep?.service === 'path') service = (req.params as { service?: string }).service ?? null;
    else return;
    // An unknown run is the route's own 400/404 to give.
    if (service !== null && service !== token.service) throw new HttpError(403, `this token is limited to service ${token.service}`, 'authorization');
  });

  // An ingest token's read of a run is its status: answered here, without the curve being computed.
  app.addHook('preHandler', async (req, reply) => {
    if (req.token?.scope !== 'ingest' || req.method !== 'GET' || endpointOf(req) !== ENDPOINTS.getRun) return;
    const run = await getRun(db, (req.params as { id: string }).id);
    if (!run) throw notFound('run');
    // Sent as text: the route's serializer would hold it to the whole RunDetail.
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(runStatusOf(run)));
  });
}
