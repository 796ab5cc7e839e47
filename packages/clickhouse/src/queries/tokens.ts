import { z } from 'zod';
import { TokenScope } from '@kneeboard/contracts';
import { insertSettings, type Db } from '../db.ts';

/** A token as stored: its public id, the SHA-256 of its secret, what it may do. */
export const TokenRow = z.object({
  id: z.string(),
  token_sha256: z.string(),
  name: z.string(),
  scope: TokenScope,
  /** '' = any service. */
  service: z.string(),
  created_at: z.coerce.number(),
  expires_at: z.coerce.number().nullable(),
  revoked_at: z.coerce.number().nullable(),
});
export type TokenRow = z.infer<typeof TokenRow>;

const COLUMNS = `id, token_sha256, name, scope, service, toUnixTimestamp64Milli(created_at) AS created_at,
  if(expires_at IS NULL, NULL, toUnixTimestamp64Milli(assumeNotNull(expires_at))) AS expires_at,
  if(revoked_at IS NULL, NULL, toUnixTimestamp64Milli(assumeNotNull(revoked_at))) AS revoked_at`;

/** Every token, revoked ones included (a few hundred rows at most: the API keeps them in memory). */
export async function listTokens(db: Db): Promise<TokenRow[]> {
  const result = await db.client.query({ query: `SELECT ${COLUMNS} FROM kb_tokens_v1 FINAL ORDER BY created_at, id`, format: 'JSONEachRow' });
  return z.array(TokenRow).parse(await result.json());
}

/** Writes a token row; a newer write of the same id replaces it (revocation, a new env admin token). */
export async function writeToken(db: Db, row: TokenRow): Promise<void> {
  await db.writes.run(() => db.client.insert({ table: 'kb_tokens_v1', values: [row], format: 'JSONEachRow', clickhouse_settings: insertSettings() }));
}

/** Marks a token revoked (the first revocation time is kept); null when the id is unknown. */
export async function revokeToken(db: Db, id: string, now = Date.now()): Promise<TokenRow | null> {
  const row = (await listTokens(db)).find((t) => t.id === id);
  if (!row) return null;
  if (row.revoked_at !== null) return row;
  const revoked = { ...row, revoked_at: now };
  await writeToken(db, revoked);
  return revoked;
}
