import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite from 'node-sqlite3-wasm';
import { describe, expect, it } from 'vitest';
import { runFollow } from '../src/import/follow.ts';
import { ohaTool } from '../src/import/oha.ts';
import { newParsed, type LineKind } from '../src/import/records.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-oha-reader-'));

/** A database with oha 1.16's table (its db.rs), rows as oha writes them. */
function ohaDb(rows: Array<[number, number, number, number]>): string {
  const path = join(dir, `oha-${rows.length}.db`);
  const db = new sqlite.Database(path);
  db.exec(`CREATE TABLE oha (url TEXT NOT NULL, start REAL NOT NULL, start_latency_correction REAL, end REAL NOT NULL,
           duration REAL NOT NULL, status INTEGER NOT NULL, len_bytes INTEGER NOT NULL, run INTEGER NOT NULL)`);
  db.exec('BEGIN');
  for (const [run, end, duration, status] of rows) {
    db.run('INSERT INTO oha VALUES (?, ?, NULL, ?, ?, ?, 10, ?)', ['http://x/', end - duration, end, duration, status, run]);
  }
  db.exec('COMMIT');
  db.close();
  return path;
}

async function read(path: string) {
  const format = ohaTool.format;
  if (format.kind !== 'rows') throw new Error('oha reads rows');
  const p = newParsed();
  const rows: Array<{ kind: LineKind; tsMs: number; latencyMs: number; status: number }> = [];
  const pauses: number[] = [];
  await format.read(path, p, (kind) => rows.push({ kind, tsMs: p.tsMs, latencyMs: p.latencyMs, status: p.status }), async (f) => {
    pauses.push(f);
  });
  return { rows, pauses };
}

// The real-tool test needs oha built (scripts/lib/load-tools.sh); this one checks the reader on
// oha's schema wherever the tests run.
describe('the oha reader', () => {
  it('reads run + end as the completion time and duration as the latency, row by row', async () => {
    const { rows } = await read(ohaDb([[1795460000, 0.12, 0.02, 200], [1795460000, 0.25, 0.05, 503]]));
    expect(rows).toEqual([
      { kind: 'event', tsMs: 1795460000120, latencyMs: 20, status: 200 },
      { kind: 'event', tsMs: 1795460000250, latencyMs: 50, status: 503 },
    ]);
  });
  it('pauses every 20,000 rows with the fraction done, so a large database streams', async () => {
    const { rows, pauses } = await read(ohaDb(Array.from({ length: 25_000 }, (_, i) => [1795460000, i / 1000, 0.001, 200] as [number, number, number, number])));
    expect(rows).toHaveLength(25_000);
    expect(pauses.map((f) => f.toFixed(3))).toEqual(['0.800']);
  });
  it('refuses a file that is not oha’s database, and one without its wall-clock column', async () => {
    const notDb = join(dir, 'not.db');
    writeFileSync(notDb, 'hello, not sqlite');
    await expect(read(notDb)).rejects.toThrow(/not\.db/);
    const old = join(dir, 'old.db');
    const db = new sqlite.Database(old);
    db.exec('CREATE TABLE oha (url TEXT, start REAL, end REAL, duration REAL, status INTEGER, len_bytes INTEGER)');
    db.close();
    await expect(read(old)).rejects.toThrow(/no column "run"/);
  });
});

describe('kneeboard import oha --follow', () => {
  it('is refused before anything is read or created, saying why: oha writes its database whole when the run ends', async () => {
    await expect(runFollow(ohaTool, { files: [join(dir, 'not-yet.db')], api: 'http://127.0.0.1:9', run: { service: 's', release: 'r' } })).rejects.toThrow(
      /oha writes its output whole when the test ends .*import the file afterwards/,
    );
  });
});
