import type { Db } from '@kneeboard/clickhouse';
import type { ApiConfig } from '../env.ts';
import { ENV_ADMIN_ID, ENV_ADMIN_NAME, TokenAdmin } from './token-admin.ts';
import { TokenStore } from './token-store.ts';

/**
 * Says who may do what, prints a generated first admin token — the only time it is shown — and
 * says so, with the way out, when the admin token KNEEBOARD_ADMIN_TOKEN sets was revoked.
 */
export async function announceAccess(log: { info(o: object, m: string): void; error(o: object, m: string): void }, db: Db, config: ApiConfig): Promise<void> {
  const { access } = config;
  if (access.mode === 'open') {
    log.info({ auth: 'open', host: config.host }, 'no tokens: listening on loopback with no admin token set; anyone on this machine may write');
    return;
  }
  const found = await new TokenAdmin(db, new TokenStore(db)).bootstrap(access.adminToken);
  log.info({ auth: 'required', reads: access.read, cors_origins: config.corsOrigins }, 'writes need a bearer token');
  if (found && 'generated' in found) {
    process.stdout.write(
      `\nkneeboard api: generated the first admin token (shown once, stored hashed):\n\n  ${found.generated}\n\n` +
        'Create tokens with it: KNEEBOARD_TOKEN=<it> kneeboard token create --name ci --scope ingest\n\n',
    );
  }
  if (found && 'envAdminRevokedAt' in found) log.error({ token: ENV_ADMIN_ID, revoked_at: new Date(found.envAdminRevokedAt).toISOString() }, envAdminRevoked(found.envAdminRevokedAt));
}

/** Why every admin request answers 401, and the one way back. */
export const envAdminRevoked = (at: number) =>
  `${ENV_ADMIN_NAME} was revoked (token ${ENV_ADMIN_ID}, at ${new Date(at).toISOString()}) and no longer works; restarting with the same value does not bring it back. ` +
  `To recover: set ${ENV_ADMIN_NAME} to a new value (e.g. openssl rand -hex 32) and restart; the new value becomes the admin token ${ENV_ADMIN_ID}. Another admin token, if you have one, still works`;
