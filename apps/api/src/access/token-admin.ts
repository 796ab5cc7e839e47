import { listTokens, revokeToken, writeToken, type Db, type TokenRow } from '@kneeboard/clickhouse';
import type { CreatedToken, CreateTokenBody, TokenInfo } from '@kneeboard/contracts';
import { newToken, sha256Hex } from './token-secret.ts';
import type { TokenStore } from './token-store.ts';

/** The id of the admin token KNEEBOARD_ADMIN_TOKEN sets; a new value replaces the old one. */
export const ENV_ADMIN_ID = 'env_admin';

export const tokenInfo = (row: TokenRow): TokenInfo => ({
  id: row.id,
  name: row.name,
  scope: row.scope,
  service: row.service === '' ? null : row.service,
  created_at: row.created_at,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at,
});

/** Creating, listing and revoking tokens; every change is seen by this process's checks at once. */
export class TokenAdmin {
  constructor(
    private readonly db: Db,
    private readonly store: TokenStore,
  ) {}

  async create(body: CreateTokenBody, now = Date.now()): Promise<CreatedToken> {
    const { id, token, sha256 } = newToken();
    const row: TokenRow = { id, token_sha256: sha256, name: body.name, scope: body.scope, service: body.service ?? '', created_at: now, expires_at: body.expires_at ?? null, revoked_at: null };
    await writeToken(this.db, row);
    await this.store.refresh();
    return { ...tokenInfo(row), token };
  }

  async list(): Promise<TokenInfo[]> {
    return (await listTokens(this.db)).map(tokenInfo);
  }

  async revoke(id: string): Promise<TokenInfo | null> {
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
  async bootstrap(envToken: string | undefined, now = Date.now()): Promise<string | null> {
    const rows = await listTokens(this.db);
    if (envToken !== undefined) {
      const hash = sha256Hex(envToken);
      if (!rows.some((r) => r.token_sha256 === hash)) {
        await writeToken(this.db, { id: ENV_ADMIN_ID, token_sha256: hash, name: 'KNEEBOARD_ADMIN_TOKEN', scope: 'admin', service: '', created_at: now, expires_at: null, revoked_at: null });
      }
      await this.store.refresh();
      return null;
    }
    const liveAdmin = rows.some((r) => r.scope === 'admin' && r.revoked_at === null && (r.expires_at === null || r.expires_at > now));
    if (liveAdmin) return null;
    return (await this.create({ name: 'first admin (generated at start-up)', scope: 'admin' }, now)).token;
  }
}
