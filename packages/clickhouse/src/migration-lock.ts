import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import type { ClickHouseClient } from '@clickhouse/client';

/**
 * One migrating process at a time per ClickHouse server (or cluster): several API processes that
 * start at once would otherwise each apply the pending migrations, and a data-moving one (DELETE +
 * INSERT … SELECT, TRUNCATE + copy) interleaved between two of them stores its rows twice.
 *
 * The lock is the table itself: `CREATE TABLE` without `IF NOT EXISTS` succeeds for exactly one
 * caller on a server (the others get TABLE_ALREADY_EXISTS), with no Keeper needed. The table's
 * comment names the holder; the holder inserts a heartbeat row (server time) every few seconds and
 * drops the table when done, also on failure. Waiters poll; a lock whose newest heartbeat is older
 * than `staleMs` (a holder that crashed) is broken. Nobody waits longer than `timeoutMs`.
 */
export const LOCK_TABLE = 'kb_migration_lock';

export interface MigrationLockOptions {
  /** A lock whose newest heartbeat (or creation, before the first) is older than this is broken. Default 60 s. */
  staleMs?: number;
  /** Give up waiting after this long, with an error saying how to remove the lock by hand. Default 15 min. */
  timeoutMs?: number;
  /** How often a waiter looks again. Default 500 ms. */
  pollMs?: number;
  /** How often the holder writes its heartbeat. Default 5 s. */
  heartbeatMs?: number;
  /** Where waiting and breaking are reported. Default: stderr. */
  log?: (line: string) => void;
}

const TABLE_ALREADY_EXISTS = '57';
const UNKNOWN_TABLE = '60';

const codeOf = (err: unknown): string | undefined => (err as { code?: unknown } | null)?.code?.toString();

const TableRow = z.object({ holder: z.string(), created: z.coerce.number() });
const BeatRow = z.object({ beat: z.coerce.number(), now: z.coerce.number() });
type LockState = { holder: string; ageMs: number };

/**
 * The current lock's holder and the age of its newest sign of life (its last heartbeat, or its
 * creation before the first), on the server's clock; null when there is no lock. Looked up in
 * system.tables first, so polling while nobody holds the lock makes no failing query (the client
 * logs each one as an error).
 */
async function readLock(client: ClickHouseClient): Promise<LockState | null> {
  const tables = await client.query({
    query: `SELECT comment AS holder, toUnixTimestamp64Milli(toDateTime64(metadata_modification_time, 3)) AS created
            FROM system.tables WHERE database = currentDatabase() AND name = '${LOCK_TABLE}'`,
    format: 'JSONEachRow',
  });
  const table = z.array(TableRow).parse(await tables.json())[0];
  if (!table) return null;
  try {
    const beats = await client.query({ query: `SELECT toUnixTimestamp64Milli(max(at)) AS beat, toUnixTimestamp64Milli(now64(3)) AS now FROM ${LOCK_TABLE}`, format: 'JSONEachRow' });
    const { beat, now } = BeatRow.parse((await beats.json())[0]);
    return { holder: table.holder, ageMs: now - Math.max(table.created, beat) };
  } catch (err) {
    if (codeOf(err) === UNKNOWN_TABLE) return null; // dropped between the two reads
    throw err;
  }
}

/**
 * Drops the lock only if `holder` still holds it. The table is first renamed to a name of our own
 * (a rename succeeds for one caller only), so a lock another process took meanwhile is never
 * dropped by mistake: it is renamed back.
 */
async function dropIfHeldBy(client: ClickHouseClient, holder: string): Promise<boolean> {
  const aside = `${LOCK_TABLE}_drop_${randomUUID().replaceAll('-', '')}`;
  try {
    await client.command({ query: `RENAME TABLE ${LOCK_TABLE} TO ${aside}` });
  } catch (err) {
    if (codeOf(err) === UNKNOWN_TABLE) return false; // already gone
    throw err;
  }
  const result = await client.query({ query: `SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = '${aside}'`, format: 'JSONEachRow' });
  const [row] = (await result.json()) as Array<{ comment: string }>;
  if (row?.comment !== holder) {
    await client.command({ query: `RENAME TABLE ${aside} TO ${LOCK_TABLE}` });
    return false;
  }
  await client.command({ query: `DROP TABLE ${aside} SYNC` });
  return true;
}

const sqlString = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` holding the migration lock on `client`'s database, waiting for another holder first. */
export async function withMigrationLock<T>(client: ClickHouseClient, work: () => Promise<T>, options: MigrationLockOptions = {}): Promise<T> {
  const { staleMs = 60_000, timeoutMs = 15 * 60_000, pollMs = 500, heartbeatMs = 5_000 } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const me = `${hostname()} pid ${process.pid} ${randomUUID()}`;
  const started = Date.now();
  let waitingFor: string | null = null;
  for (;;) {
    const lock = await readLock(client);
    if (!lock) {
      try {
        await client.command({
          query: `CREATE TABLE ${LOCK_TABLE} (at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY tuple() COMMENT ${sqlString(me)}`,
        });
        break;
      } catch (err) {
        if (codeOf(err) !== TABLE_ALREADY_EXISTS) throw err;
        continue; // another process created it first: look at it
      }
    }
    if (lock.ageMs > staleMs) {
      log(`breaking a stale migration lock: ${LOCK_TABLE} held by ${lock.holder}, no heartbeat for ${Math.round(lock.ageMs / 1000)} s (stale after ${Math.round(staleMs / 1000)} s)`);
      await dropIfHeldBy(client, lock.holder);
      continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(
        `gave up after ${Math.round(timeoutMs / 1000)} s waiting for the migration lock ${LOCK_TABLE} (held by ${lock.holder}); ` +
          `if no process is migrating this database, remove it by hand: DROP TABLE ${LOCK_TABLE}`,
      );
    }
    if (waitingFor !== lock.holder) {
      waitingFor = lock.holder;
      log(`waiting for another process's migrations: ${LOCK_TABLE} is held by ${lock.holder}`);
    }
    await sleep(pollMs);
  }

  let beating: Promise<unknown> = Promise.resolve();
  const beat = () => {
    // A failed heartbeat is not fatal: a holder that really stops beating is broken after staleMs.
    beating = client.command({ query: `INSERT INTO ${LOCK_TABLE} SELECT now64(3)` }).catch(() => undefined);
  };
  beat();
  const timer = setInterval(beat, heartbeatMs);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await beating;
    // Not thrown: it would hide the migrations' own error, and a lock left behind is broken after staleMs.
    await dropIfHeldBy(client, me).catch((err: unknown) => log(`could not drop the migration lock ${LOCK_TABLE}: ${String(err)}; other processes break it after ${Math.round(staleMs / 1000)} s, or DROP TABLE ${LOCK_TABLE} by hand`));
  }
}
