import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { insertSettings, type Db } from './db.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));
const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  file: string;
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => FILE_NAME.test(f))
    .sort()
    .map((file) => {
      const [, version, name] = FILE_NAME.exec(file) as RegExpExecArray;
      const sql = readFileSync(`${dir}/${file}`, 'utf8');
      return { file, version: Number(version), name: name as string, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const AppliedRow = z.object({ version: z.coerce.number(), checksum: z.string() });

/**
 * Applies pending migrations in order and records each in kb_schema_migrations.
 * A recorded migration whose file has changed is an error: migrations are append-only.
 */
export async function migrate(db: Db, migrations = loadMigrations()): Promise<Migration[]> {
  await db.client.command({
    query: `CREATE TABLE IF NOT EXISTS kb_schema_migrations
            (version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC'))
            ENGINE = MergeTree ORDER BY version`,
  });
  const result = await db.client.query({ query: 'SELECT version, checksum FROM kb_schema_migrations', format: 'JSONEachRow' });
  const applied = new Map(z.array(AppliedRow).parse(await result.json()).map((r) => [r.version, r.checksum]));

  const ran: Migration[] = [];
  for (const m of migrations) {
    const known = applied.get(m.version);
    if (known !== undefined) {
      if (known !== m.checksum) throw new Error(`migration ${m.file} was changed after it was applied; add a new migration instead`);
      continue;
    }
    await db.client.command({ query: m.sql });
    await db.writes.run(() =>
      db.client.insert({
        table: 'kb_schema_migrations',
        values: [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: Date.now() }],
        format: 'JSONEachRow',
        clickhouse_settings: insertSettings(),
      }),
    );
    ran.push(m);
  }
  return ran;
}
