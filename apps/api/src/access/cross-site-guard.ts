import type { FastifyInstance } from 'fastify';
import { ARROW_STREAM_CONTENT_TYPE } from '@kneeboard/contracts';
import { HttpError } from '../errors.ts';
import type { OriginPolicy } from './origins.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The bodies the API takes. Form encodings and text/plain are what a page can send cross-site without asking. */
const WRITE_TYPES = new Set(['application/json', ARROW_STREAM_CONTENT_TYPE]);

const mediaType = (header: string | undefined) => header?.split(';')[0]?.trim().toLowerCase();

/** A bearer token is a header no page can attach cross-site without a CORS preflight, which is refused. */
export const hasBearer = (authorization: string | undefined) => /^bearer\s+\S/i.test(authorization ?? '');

/**
 * Refuses, before any body is read, what a hostile page open in the user's browser could send:
 * a state-changing request from another origin (403), or one with a body in a type a page may
 * send without a preflight (415). A request carrying a bearer token is not a browser's doing and
 * is left to the token check.
 */
export function registerCrossSiteGuard(app: FastifyInstance, origins: OriginPolicy): void {
  app.addHook('onRequest', async (req) => {
    if (SAFE_METHODS.has(req.method) || hasBearer(req.headers.authorization)) return;
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.mayWrite(origin, req.headers)) {
      throw new HttpError(403, `cross-origin ${req.method} from ${origin} refused; list the origin in KNEEBOARD_CORS_ORIGINS or send a bearer token`, 'origin');
    }
    const type = mediaType(req.headers['content-type']);
    if (type !== undefined && !WRITE_TYPES.has(type)) {
      throw new HttpError(415, `a ${req.method} body must be application/json (or ${ARROW_STREAM_CONTENT_TYPE} for events), not ${type}`, 'content-type');
    }
  });
}
