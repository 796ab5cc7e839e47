import { listTokens, type Db, type TokenRow } from '@kneeboard/clickhouse';
import { storageFailure } from '../ingest/storage-failure.ts';
import { sha256Hex } from './token-secret.ts';

/** Another API replica's revocation takes effect here within this long. */
const REFRESH_MS = 5_000;
/** An unknown token triggers a re-read (one created on another replica) at most this often. */
const UNKNOWN_REFRESH_MS = 1_000;

/**
 * The tokens table in memory, keyed by the SHA-256 of the secret: a request costs one hash and one
 * map lookup, never a query. Refreshed every few seconds and at once after this process changes it.
 */
export class TokenStore {
  private byHash = new Map<string, TokenRow>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  /** The live token for this secret, or null (unknown, revoked or expired). */
  async verify(secret: string, now = Date.now()): Promise<TokenRow | null> {
    const hash = sha256Hex(secret);
    if (now - this.loadedAt > REFRESH_MS || (!this.byHash.has(hash) && now - this.loadedAt > UNKNOWN_REFRESH_MS)) {
      try {
        await this.refresh();
      } catch (err) {
        // Storage down: the tokens read last still decide (a revocation waits); never read, nothing can.
        if (this.loadedAt === Number.NEGATIVE_INFINITY) throw storageFailure(err, 'the token check');
      }
    }
    const row = this.byHash.get(hash);
    if (!row || row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) return null;
    return row;
  }

  /** Re-reads the table; concurrent callers share one read. */
  refresh(): Promise<void> {
    this.loading ??= listTokens(this.db)
      .then((rows) => {
        this.byHash = new Map(rows.map((r) => [r.token_sha256, r]));
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}
