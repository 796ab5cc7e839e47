import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getRun, type Db, type TokenRow } from '@kneeboard/clickhouse';
import { HttpError, notFound } from '../errors.ts';
import { runStatusOf } from './run-status.ts';
import type { AccessConfig } from './config.ts';
import type { TokenStore } from './token-store.ts';
import { FLEET_ROUTES } from '../routes/v1/agent-routes.ts';

/** What a route needs: nothing, a read, what an agent does, a change by a person, token management. */
type Need = 'none' | 'read' | 'ingest' | 'write' | 'admin' | 'share-create';

const PREFIX = '/api/v1';
/** An agent's whole conversation: create, steps, events, finish, and its run's status before replaying a spool. */
const INGEST = new Set(['POST /runs', 'POST /runs/:id/steps', 'POST /runs/:id/events', 'POST /runs/:id/finish', 'GET /runs/:id', ...FLEET_ROUTES]);
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

function needOf(method: string, url: string | undefined): Need {
  // Health, the OpenAPI document and unknown routes (a 404 follows; nothing is read or written).
  if (url === undefined || !url.startsWith(`${PREFIX}/`) || method === 'OPTIONS') return 'none';
  const route = url.slice(PREFIX.length);
  // Creating a share link is a read decision (it grants only reads): a write token may, for share tokens.
  if (method === 'POST' && route === '/tokens') return 'share-create';
  if (route === '/tokens' || route.startsWith('/tokens/')) return 'admin';
  if (INGEST.has(`${method} ${route}`)) return SAFE.has(method) ? 'read' : 'ingest';
  return SAFE.has(method) ? 'read' : 'write';
}

/** What a share link shows: one run's views, or a comparison of runs it names. */
const SHARE_RUN_VIEWS = new Set(['/runs/:id', '/runs/:id/analysis', '/runs/:id/agents', '/runs/:id/curve.svg', '/runs/:id/curve.csv', '/runs/:id/live', '/runs/:id/levels/:level', '/runs/:id/timeline', '/runs/:id.png']);
const SHARE_COMPARE_VIEWS = new Set(['/compare', '/compare.svg', '/compare.md', '/compare.png']);

/** Every run id a comparison's query names (`base` and `head`, each a comma-separated group). */
function comparedRuns(query: unknown): string[] {
  const q = (query ?? {}) as Record<string, unknown>;
  return ['base', 'head'].flatMap((k) => [q[k]].flat()).filter((v): v is string => typeof v === 'string').flatMap((v) => v.split(',').map((id) => id.trim().toLowerCase()));
}

/** A share token reads its own runs' views only: no list, no other run, no write. */
function shareAllows(token: TokenRow, req: FastifyRequest, route: string): boolean {
  if (!SAFE.has(req.method)) return false;
  const runs = new Set(token.runs.map((r) => r.toLowerCase()));
  if (SHARE_RUN_VIEWS.has(route)) return runs.has(String((req.params as { id?: unknown }).id ?? '').toLowerCase());
  if (SHARE_COMPARE_VIEWS.has(route)) {
    const ids = comparedRuns(req.query);
    return ids.length > 0 && ids.every((id) => runs.has(id));
  }
  return false;
}

/**
 * What an ingest token reads: its run's status (GET /runs/:id answers the run record alone, see
 * run-status.ts) and its fleet plan's progress — what an agent and a coordinator poll. Not the
 * run's agents, curve, analysis or anything else.
 */
const INGEST_READS = new Set(['GET /runs/:id', 'GET /runs/:id/fleet']);

function allows(token: TokenRow, need: Need, req: FastifyRequest, url: string): boolean {
  const route = url.slice(PREFIX.length);
  if (token.scope === 'admin') return true;
  if (token.scope === 'write') return need !== 'admin' && !(need === 'share-create' && token.service !== '');
  if (token.scope === 'share') return shareAllows(token, req, route);
  // ingest: the agent's routes only, and of reads only its run's status.
  const key = `${req.method} ${route}`;
  return SAFE.has(req.method) ? INGEST_READS.has(key) : INGEST.has(key);
}

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
    const need = needOf(req.method, url);
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
    if (!allows(token, need, req, url as string)) throw new HttpError(403, `a ${token.scope} token cannot ${req.method} ${url}`, 'authorization');
    req.token = token;
  });

  app.addHook('preHandler', async (req) => {
    const token = req.token;
    const url = req.routeOptions.url ?? '';
    // The body is parsed by now: a write token creates share tokens, nothing more powerful.
    if (token?.scope === 'write' && url === `${PREFIX}/tokens` && (req.body as { scope?: string } | undefined)?.scope !== 'share') {
      throw new HttpError(403, 'a write token can create share tokens only', 'authorization');
    }
    // Reads by service are not limited yet, except an ingest token's (its run's status, its own service's runs).
    if (!token || token.service === '' || (SAFE.has(req.method) && token.scope !== 'ingest')) return;
    let service: string | null = null;
    if (url === `${PREFIX}/runs`) service = (req.body as { service?: string } | undefined)?.service ?? null;
    else if (url.startsWith(`${PREFIX}/runs/:id`)) service = await services.of((req.params as { id: string }).id);
    else return;
    // An unknown run is the route's own 400/404 to give.
    if (service !== null && service !== token.service) throw new HttpError(403, `this token is limited to service ${token.service}`, 'authorization');
  });

  // An ingest token's read of a run is its status: answered here, without the curve being computed.
  app.addHook('preHandler', async (req, reply) => {
    if (req.token?.scope !== 'ingest' || req.method !== 'GET' || req.routeOptions.url !== `${PREFIX}/runs/:id`) return;
    const run = await getRun(db, (req.params as { id: string }).id);
    if (!run) throw notFound('run');
    // Sent as text: the route's serializer would hold it to the whole RunDetail.
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(runStatusOf(run)));
  });
}
