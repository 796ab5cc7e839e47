import { z } from 'zod';
import { EpochMs, IngestEpochMs, RunId } from './common.ts';
import { API_PREFIX } from './endpoints/endpoint.ts';
import { NONBLANK_LINE, plainLine } from './text.ts';

/**
 * What a token may do. `ingest`: what an agent needs (create a run, post its steps and events,
 * finish it, read its status) and nothing else. `write`: every read and write of runs, notes,
 * labels and links. `admin`: everything, including managing tokens. `share`: a read-only share
 * link to its runs (one run, or the runs of one comparison) and nothing else.
 */
export const TokenScope = z.enum(['ingest', 'write', 'admin', 'share']);
export type TokenScope = z.infer<typeof TokenScope>;

/** The public part of a token, shown in lists and used to revoke it; the secret is never stored. */
export const TokenId = z.string().regex(/^[a-z0-9_]{3,40}$/, `must be a token id as listed by GET ${API_PREFIX}/tokens`);

export const CreateTokenBody = z
  .object({
    name: z.string().max(100).trim().min(1).superRefine(plainLine).meta(NONBLANK_LINE),
    scope: TokenScope,
    /** Writes limited to runs of this service (ingest and write tokens). */
    service: z.string().max(200).trim().min(1).superRefine(plainLine).meta(NONBLANK_LINE).optional(),
    /** Epoch ms after which the token no longer works. */
    expires_at: IngestEpochMs.int('must be whole milliseconds').optional(),
    /** A share token's runs: one run, or the runs of one comparison. */
    runs: z.array(RunId).min(1).max(64).optional(),
  })
  .refine((b) => !((b.scope === 'admin' || b.scope === 'share') && b.service !== undefined), { message: 'only ingest and write tokens can be limited to a service', path: ['service'] })
  .refine((b) => (b.scope === 'share') === (b.runs !== undefined), { message: 'a share token needs runs, and only a share token takes them', path: ['runs'] })
  // The two rules above for the OpenAPI document (OpenAPI 3.0 has no if/then).
  .meta({
    anyOf: [
      { properties: { scope: { enum: ['ingest', 'write'] } }, not: { required: ['runs'] } },
      { properties: { scope: { enum: ['admin'] } }, not: { anyOf: [{ required: ['runs'] }, { required: ['service'] }] } },
      { properties: { scope: { enum: ['share'] } }, required: ['runs'], not: { required: ['service'] } },
    ],
  });
export type CreateTokenBody = z.infer<typeof CreateTokenBody>;

export const TokenInfo = z.object({
  id: TokenId,
  name: z.string(),
  scope: TokenScope,
  service: z.string().nullable(),
  created_at: EpochMs,
  expires_at: EpochMs.nullable(),
  revoked_at: EpochMs.nullable(),
  /** A share token's runs; absent for other tokens. */
  runs: z.array(z.string()).optional(),
});
export type TokenInfo = z.infer<typeof TokenInfo>;

/** The answer to a creation: the only time the secret is shown. */
export const CreatedToken = TokenInfo.extend({ token: z.string() });
export type CreatedToken = z.infer<typeof CreatedToken>;

export const ListTokensResponse = z.object({ tokens: z.array(TokenInfo) });
