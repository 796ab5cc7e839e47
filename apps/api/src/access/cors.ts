import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { OriginPolicy } from './origins.ts';

/**
 * CORS headers only for the origins listed in KNEEBOARD_CORS_ORIGINS; any other origin gets none,
 * so a browser keeps its page from reading answers or sending preflighted writes. Credentials
 * (cookies) are never allowed: the API authenticates with bearer tokens, which a page must hold.
 */
export async function registerCors(app: FastifyInstance, origins: OriginPolicy): Promise<void> {
  await app.register(cors, {
    origin: (origin, cb) => cb(null, origin !== undefined && origins.listed(origin)),
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type'],
    credentials: false,
    maxAge: 600,
  });
}
