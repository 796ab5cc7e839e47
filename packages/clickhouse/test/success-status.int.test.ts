import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSuccessStatus } from '@kneeboard/contracts';
import { loadMigrations, openDb } from '../src/index.ts';
import { successStatusSql } from '../src/queries/success-status.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-success-'));
const db = openDb({ mode: 'embedded', path: dir });
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The edges of the rule, plus the statuses most seen (a stored status is 0–999, UInt16 in kb_request_events_v1). */
const STATUSES = [0, 1, 200, 304, 399, 400, 404, 500, 599, 999];

describe('successStatusSql', () => {
  it('agrees with isSuccessStatus on the engine, status by status', async () => {
    const rows = STATUSES.map((s) => `(${s})`).join(', ');
    const res = await db.client.query({
      query: `SELECT status, ${successStatusSql('status')} AS ok FROM values('status UInt16', ${rows}) ORDER BY status`,
      format: 'JSONEachRow',
    });
    const answered = ((await res.json()) as Array<{ status: number; ok: number | boolean }>).map((r) => [Number(r.status), Boolean(Number(r.ok))]);
    expect(answered).toEqual(STATUSES.map((s) => [s, isSuccessStatus(s)]));
  });

  it('is the predicate the frozen rollup migrations were written with', () => {
    // 014, 015, 072, 093, 094 and 100 cannot be generated (an applied migration must not change), so their text is checked.
    const predicates = loadMigrations().flatMap((m) => [...m.sql.matchAll(/status\s+BETWEEN\s+\d+\s+AND\s+\d+/g)].map((x) => [m.file, x[0]]));
    expect(new Set(predicates.map(([file]) => file))).toEqual(
      new Set([
        '014_create_request_seconds_mv_v1.sql',
        '015_backfill_request_seconds_v1.sql',
        '072_create_request_name_seconds_mv_v1.sql',
        '093_create_request_seconds_from_events_mv_v1.sql',
        '094_create_request_name_seconds_from_events_mv_v1.sql',
        '100_split_request_seconds_by_name.sql',
      ]),
    );
    for (const [file, predicate] of predicates) expect(predicate, file).toBe(successStatusSql('status'));
  });
});
