import { listTokens, revokeToken, writeToken, type Db, type TokenRow } from '@kneeboard/clickhouse';
import type { CreatedToken, CreateTokenBody, TokenInfo } from '@kneeboard/contracts';
import { HttpError } from '../errors.ts';
import { newToken, sha256Hex } from './token-secret.ts';
import type { TokenStore } from './token-store.ts';

/** The id of the admin token KNEEBOARD_ADMIN_TOKEN sets; a new value replaces the old one. */
export const ENV_ADMIN_ID = 'env_admin';
/** Its name in the list, and what must be typed to revoke it. */
export const ENV_ADMIN_NAME = 'KNEEBOARD_ADMIN_TOKEN';

/** What the start-up found: a generated first admin token to print once, or a revoked env admin token to report. */
export type Bootstrap = { generated: string } | { envAdminRevokedAt: number } | null;

export const tokenInfo = (row: TokenRow): TokenInfo => ({
  id: row.id,
  name: row.name,
  scope: row.scope,
  service: row.service === '' ? null : row.service,
  created_at: row.created_at,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at,
  ...(row.scope === 'share' ? { runs: row.runs } : {}),
});

/** Creating, listing and revoking tokens; every change is seen by this process's checks at once. */
export class TokenAdmin {
  constructor(
    private readonly db: Db,
    private readonly store: TokenStore,
  ) {}

  async create(body: CreateTokenBody, now = Date.now()): Promise<CreatedToken> {
    const { id, token, sha256 } = newToken();
    const row: TokenRow = { id, token_sha256: sha256, name: body.name, scope: body.scope, service: body.service ?? '', created_at: now, expires_at: body.expires_at ?? null, revoked_at: null, runs: body.runs ?? [] };
    await writeToken(this.db, row);
    await this.store.refresh();
    return { ...tokenInfo(row), token };
  }

  async list(): Promise<TokenInfo[]> {
    return (await listTokens(this.db)).map(tokenInfo);
  }

  /**
   * Revokes a token. The one KNEEBOARD_ADMIN_TOKEN sets only with `confirm` equal to its name:
   * revoking it locks out whoever signs in with it, and a restart with the same environment does
   * not bring it back (only a new value does), so it is never one click away.
   */
  async revoke(id: string, confirm?: string): Promise<TokenInfo | null> {
    if (id === ENV_ADMIN_ID && confirm !== ENV_ADMIN_NAME) {
      throw new HttpError(
        400,
        `revoking ${ENV_ADMIN_ID}, the admin token ${ENV_ADMIN_NAME} sets, locks out everyone using it and a restart will not bring it back (only a new ${ENV_ADMIN_NAME} value does); to revoke it anyway, repeat with ?confirm=${ENV_ADMIN_NAME}`,
        'querystring.confirm',
      );
    }
    const row = await revokeToken(this.db, id);
    await this.store.refresh();
    return row && tokenInfo(row);
  }

  /**
   * At start-up, with tokens required: KNEEBOARD_ADMIN_TOKEN becomes the admin token `env_admin`
   * (stored hashed; a revoked one stays revoked until the variable changes). Without it, and with
   * no live admin token stored, one is generated and returned — to be printed once; later starts
   * find it stored and return nothing.
   */
  async bootstrap(envToken: string | undefined, now = Date.now()): Promise<Bootstrap> {
    const rows = await listTokens(this.db);
    if (envToken !== undefined) {
      const hash = sha256Hex(envToken);
      const stored = rows.find((r) => r.token_sha256 === hash);
      if (!stored) {
        await writeToken(this.db, { id: ENV_ADMIN_ID, token_sha256: hash, name: ENV_ADMIN_NAME, scope: 'admin', service: '', created_at: now, expires_at: null, revoked_at: null, runs: [] });
      }
      await this.store.refresh();
      return stored && stored.revoked_at !== null ? { envAdminRevokedAt: stored.revoked_at } : null;
    }
    const liveAdmin = rows.some((r) => r.scope === 'admin' && r.revoked_at === null && (r.expires_at === null || r.expires_at > now));
    if (liveAdmin) return null;
    return { generated: (await this.create({ name: 'first admin (generated at start-up)', scope: 'admin' }, now)).token };
  }
}
