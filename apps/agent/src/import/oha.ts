import type { Database } from 'node-sqlite3-wasm';
import { SweepError } from '../sweep/sweep-error.ts';
import type { LineKind, Parsed, ToolSpec } from './records.ts';
import { requestName } from './request-name.ts';

/** Rows between pauses: the importer's chance to print progress and wait for the API. */
const ROWS_PER_PAUSE = 20_000;

/**
 * oha's `--db-url` SQLite database: one row per *successful* request (oha stores only those) in
 * table `oha`. `start`/`end` are seconds since the benchmark began and `run` is the wall-clock
 * second it began (oha ≥ 1.5), so a request completed at run + end — to within the second oha
 * truncated `run` to, the same for every row of a run. `duration` runs from the intended send time
 * when oha ran with `--latency-correction`. The concurrency or rate is not stored: `--level`. The
 * request's name is its `url` (the path oha requested; older databases without the column: none).
 *
 * Read with node-sqlite3-wasm (SQLite compiled to WebAssembly, reading pages through Node's fs),
 * one row at a time from a read-only connection: constant memory, and the file is never written.
 */
async function readOha(path: string, out: Parsed, onRow: (kind: LineKind, row: number) => void, pause: (fraction: number) => Promise<void>): Promise<void> {
  // Loaded here, not at start-up: the WebAssembly module is only worth compiling for oha files.
  const sqlite = (await import('node-sqlite3-wasm')).default;
  let db: Database;
  try {
    db = new sqlite.Database(path, { readOnly: true, fileMustExist: true });
  } catch (err) {
    throw new SweepError('config', `${path} is not an SQLite database oha wrote: ${(err as Error).message}`, { cause: err });
  }
  try {
    let columns: Set<unknown>;
    try {
      columns = new Set(db.all("SELECT name FROM pragma_table_info('oha')").map((c) => c.name));
    } catch (err) {
      // SQLite opens any file lazily: a file that is not a database fails at the first read.
      throw new SweepError('config', `${path} is not an SQLite database oha wrote: ${(err as Error).message}`, { cause: err });
    }
    if (columns.size === 0) throw new SweepError('config', `${path} has no table "oha": is it oha's --db-url output?`);
    for (const c of ['run', 'end', 'duration', 'status']) {
      if (!columns.has(c)) throw new SweepError('config', `${path}: table "oha" has no column "${c}" (written by an oha older than 1.5, which stored no wall-clock time)`);
    }
    const total = Number(db.get('SELECT count(*) AS n FROM oha')?.n ?? 0);
    const hasUrl = columns.has('url');
    const statement = db.prepare(`SELECT run, "end" AS e, duration, status${hasUrl ? ', url' : ''} FROM oha ORDER BY rowid`);
    // URLs repeat: each is checked once.
    const names = new Map<string, string>();
    let n = 0;
    for (const row of statement.iterate()) {
      const { run, e: end, duration, status, url } = row;
      n += 1;
      if (typeof run !== 'number' || typeof end !== 'number' || typeof duration !== 'number' || typeof status !== 'number') {
        out.reason = 'run, end, duration or status is not a number';
        onRow('bad', n);
      } else {
        out.tsMs = (run + end) * 1000;
        out.latencyMs = duration * 1000;
        out.status = status;
        out.level = Number.NaN;
        const raw = typeof url === 'string' ? url : '';
        let name = names.get(raw);
        if (name === undefined) {
          name = requestName(raw);
          if (names.size < 10_000) names.set(raw, name);
        }
        out.name = name;
        onRow('event', n);
      }
      if (n % ROWS_PER_PAUSE === 0) await pause(n / total);
    }
    statement.finalize();
  } finally {
    db.close();
  }
}

export const ohaTool: ToolSpec = {
  name: 'oha',
  identity: 'oha',
  loadModel: 'closed',
  parameter: 'concurrency',
  levelsFrom: null,
  format: { kind: 'rows', read: readOha },
};
