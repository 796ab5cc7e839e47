import type { Db } from '@kneeboard/clickhouse';
import type { ApiConfig } from '../env.ts';
import { TokenAdmin } from './token-admin.ts';
import { TokenStore } from './token-store.ts';

/** Says who may do what, and prints a generated first admin token — the only time it is shown. */
export async function announceAccess(log: { info(o: object, m: string): void }, db: Db, config: ApiConfig): Promise<void> {
  const { access } = config;
  if (access.mode === 'open') {
    log.info({ auth: 'open', host: config.host }, 'no tokens: listening on loopback with no admin token set; anyone on this machine may write');
    return;
  }
  const generated = await new TokenAdmin(db, new TokenStore(db)).bootstrap(access.adminToken);
  log.info({ auth: 'required', reads: access.read, cors_origins: config.corsOrigins }, 'writes need a bearer token');
  if (generated) {
    process.stdout.write(
      `\nkneeboard api: generated the first admin token (shown once, stored hashed):\n\n  ${generated}\n\n` +
        'Create tokens with it: KNEEBOARD_TOKEN=<it> kneeboard token create --name ci --scope ingest\n\n',
    );
  }
}
