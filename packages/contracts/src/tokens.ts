import { z } from 'zod';
import { EpochMs } from './common.ts';
import { plainLine } from './text.ts';

/**
 * What a token may do. `ingest`: what an agent needs (create a run, post its steps and events,
 * finish it, read its status) and nothing else. `write`: every read and write of runs, notes,
 * labels and links. `admin`: everything, including managing tokens.
 */
export const TokenScope = z.enum(['ingest', 'write', 'admin']);
export type TokenScope = z.infer<typeof TokenScope>;

/** The public part of a token, shown in lists and used to revoke it; the secret is never stored. */
export const TokenId = z.string().regex(/^[a-z0-9_]{3,40}$/, 'must be a token id as listed by GET /api/v1/tokens');

export const CreateTokenBody = z
  .object({
    name: z.string().trim().min(1).max(100).superRefine(plainLine),
    scope: TokenScope,
    /** Writes limited to runs of this service (ingest and write tokens). */
    service: z.string().trim().min(1).max(200).superRefine(plainLine).optional(),
    /** Epoch ms after which the token no longer works. */
    expires_at: EpochMs.optional(),
  })
  .refine((b) => !(b.scope === 'admin' && b.service !== undefined), { message: 'an admin token cannot be limited to a service', path: ['service'] });
export type CreateTokenBody = z.infer<typeof CreateTokenBody>;

export const TokenInfo = z.object({
  id: TokenId,
  name: z.string(),
  scope: TokenScope,
  service: z.string().nullable(),
  created_at: EpochMs,
  expires_at: EpochMs.nullable(),
  revoked_at: EpochMs.nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfo>;

/** The answer to a creation: the only time the secret is shown. */
export const CreatedToken = TokenInfo.extend({ token: z.string() });
export type CreatedToken = z.infer<typeof CreatedToken>;

export const ListTokensResponse = z.object({ tokens: z.array(TokenInfo) });
