import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb, readLedger, writeLedger, type Db } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-ledger-'));
let db: Db;
beforeAll(async () => {
  db = openDb({ mode: 'embedded', path: dir });
  await migrate(db);
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const RUN = '6f1c1a64-1b7e-4a53-9a7d-3a6cbb0b0a11';
const entry = (batch_id: string, received_at: number) => ({ run_id: RUN, batch_id, agent_id: 'a', events: 10, content_hash: `h-${batch_id}`, received_at });

describe('the batch ledger', () => {
  it('records many batches in one write and reads a run’s batches received since a time, oldest first', async () => {
    const t = 1_795_000_000_000;
    await writeLedger(db, [entry('b', t + 2_000), entry('a', t + 1_000), entry('c', t + 3_000)]);
    expect((await readLedger(db, RUN)).map((r) => [r.batch_id, r.received_at, r.content_hash])).toEqual([
      ['a', t + 1_000, 'h-a'],
      ['b', t + 2_000, 'h-b'],
      ['c', t + 3_000, 'h-c'],
    ]);
    expect((await readLedger(db, RUN, t + 2_000)).map((r) => r.batch_id)).toEqual(['b', 'c']);
    expect(await readLedger(db, RUN, t + 3_001)).toEqual([]);
    expect(await readLedger(db, '00000000-0000-4000-8000-000000000000')).toEqual([]);
  });
});
