import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { insertSettings, type Db } from '../db.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CODE_LENGTH = 8;

function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

const LinkRow = z.object({ code: z.string(), path: z.string() });

export async function resolveLink(db: Db, code: string): Promise<string | null> {
  const result = await db.client.query({
    query: 'SELECT code, path FROM kb_links_v1 FINAL WHERE code = {code:String}',
    query_params: { code },
    format: 'JSONEachRow',
  });
  return z.array(LinkRow).parse(await result.json())[0]?.path ?? null;
}

/** Stores a short code for a view path. 62⁸ codes make a collision negligible; one is still checked for. */
export async function createLink(db: Db, path: string, now = Date.now()): Promise<string> {
  for (;;) {
    const code = newCode();
    if ((await resolveLink(db, code)) !== null) continue;
    await db.writes.run(() =>
      db.client.insert({ table: 'kb_links_v1', values: [{ code, path, created_at: now }], format: 'JSONEachRow', clickhouse_settings: insertSettings() }),
    );
    return code;
  }
}
