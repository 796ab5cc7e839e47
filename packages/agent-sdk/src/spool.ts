import { mkdir, readdir, readFile, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ARROW_STREAM_CONTENT_TYPE, endpointPath, ENDPOINTS } from '@kneeboard/contracts';
import type { WireBody } from './wire-body.ts';

/** What a spooled file is sent to: the run's events, a step window, the finish. */
const ENTRY_ENDPOINTS = { events: ENDPOINTS.postEvents, steps: ENDPOINTS.postStep, finish: ENDPOINTS.finishRun } as const;
export type EntryKind = keyof typeof ENTRY_ENDPOINTS;
const KINDS: ReadonlySet<string> = new Set(Object.keys(ENTRY_ENDPOINTS));

/** The path a queued or spooled call is POSTed to, its body's query string (an Arrow batch's ids) included. */
export function entryPath(runId: string, kind: EntryKind, body: WireBody): string {
  return endpointPath(ENTRY_ENDPOINTS[kind], { id: runId }, new URLSearchParams(body.query));
}

export interface SpooledEntry {
  seq: number;
  kind: EntryKind;
  file: string;
}

interface Owner {
  pid: number;
  host: string;
}

const OWNER_FILE = 'owner.json';
export const REJECTED_DIR = 'rejected';
const NAME = /^(\d{12})\.(events|steps|finish)\.(json|arrow)$/;

/**
 * `.json` files hold a JSON body as sent. `.arrow` files hold the query string, a newline, then the
 * Arrow IPC stream (which starts with 0xFFFFFFFF, so the first newline is always the separator).
 */
const extensionOf = (body: WireBody): 'json' | 'arrow' => (body.contentType === ARROW_STREAM_CONTENT_TYPE ? 'arrow' : 'json');
const fileName = (seq: number, kind: EntryKind, body: WireBody): string => `${String(seq).padStart(12, '0')}.${kind}.${extensionOf(body)}`;

function toFileBytes(body: WireBody): Uint8Array {
  if (extensionOf(body) === 'json') return body.bytes;
  return Buffer.concat([Buffer.from(`${body.query}\n`, 'utf8'), body.bytes]);
}

function fromFileBytes(file: string, bytes: Buffer): WireBody {
  if (!file.endsWith('.arrow')) return { contentType: 'application/json', query: '', bytes };
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) throw new Error(`${file}: no query line before the Arrow stream`);
  return { contentType: ARROW_STREAM_CONTENT_TYPE, query: bytes.subarray(0, newline).toString('utf8'), bytes: bytes.subarray(newline + 1) };
}

/**
 * One run's corner of the spool directory: `<spoolDir>/<runId>/`, one file per API call, named by
 * sequence number so a replay sends them in the original order (an open step window never lands
 * after its final one). `owner.json` names the live process writing it, so a replay started
 * elsewhere leaves the directory alone.
 */
export class RunSpool {
  private constructor(
    readonly spoolDir: string,
    readonly runId: string,
    readonly dir: string,
  ) {}

  /** Creates the directory and claims it for this process. Fails loudly when the disk refuses. */
  static async open(spoolDir: string, runId: string): Promise<RunSpool> {
    const dir = join(spoolDir, runId);
    await mkdir(dir, { recursive: true });
    await writeAtomic(join(dir, OWNER_FILE), JSON.stringify({ pid: process.pid, host: hostname() } satisfies Owner));
    return new RunSpool(spoolDir, runId, dir);
  }

  /** Writes the body under a temporary name and renames it: a file either is whole or is not there. */
  async write(seq: number, kind: EntryKind, body: WireBody): Promise<string> {
    const file = join(this.dir, fileName(seq, kind, body));
    await writeAtomic(file, toFileBytes(body));
    return file;
  }

  async read(file: string): Promise<WireBody> {
    return fromFileBytes(file, await readFile(file));
  }

  /** After the API acknowledged it. */
  remove(file: string): Promise<void> {
    return unlink(file);
  }

  /** A body the API refused for good (a 400) is kept for a person to look at, out of the replay's way. */
  async reject(file: string): Promise<string> {
    return moveToRejected(this.spoolDir, this.runId, file);
  }

  /** Releases the claim; removes the directory when nothing is left in it. */
  async close(): Promise<void> {
    await rm(join(this.dir, OWNER_FILE), { force: true });
    await rmdir(this.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'ENOENT') throw err;
    });
  }
}

export async function moveToRejected(spoolDir: string, runId: string, file: string): Promise<string> {
  const dir = join(spoolDir, REJECTED_DIR, runId);
  await mkdir(dir, { recursive: true });
  const to = join(dir, file.slice(file.lastIndexOf('/') + 1));
  await rename(file, to);
  return to;
}

export interface SpooledRun {
  runId: string;
  dir: string;
  entries: SpooledEntry[];
  /** The process that owns the directory, when one says so and is still alive on this host. */
  liveOwner: Owner | null;
}

/** Every run directory with leftovers, entries in send order. Half-written temporary files are removed. */
export async function listSpool(spoolDir: string): Promise<SpooledRun[]> {
  let names: string[];
  try {
    names = await readdir(spoolDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const runs: SpooledRun[] = [];
  for (const runId of names.sort()) {
    if (runId === REJECTED_DIR) continue;
    const dir = join(spoolDir, runId);
    let files: string[];
    try {
      files = await readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      throw err;
    }
    const owner = await liveOwner(dir);
    const entries: SpooledEntry[] = [];
    for (const f of files.sort()) {
      const m = NAME.exec(f);
      if (m && KINDS.has(m[2]!)) entries.push({ seq: Number(m[1]), kind: m[2] as EntryKind, file: join(dir, f) });
      // A temporary file of a dead process is a write it never finished, so that body was never sent either.
      else if (f.endsWith('.tmp') && owner === null) await rm(join(dir, f), { force: true });
    }
    runs.push({ runId, dir, entries, liveOwner: owner });
  }
  return runs;
}

async function liveOwner(dir: string): Promise<Owner | null> {
  let owner: Owner;
  try {
    owner = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8')) as Owner;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return null;
    throw err;
  }
  if (owner.host !== hostname() || owner.pid === process.pid) return null;
  try {
    process.kill(owner.pid, 0);
    return owner;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else — still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? owner : null;
  }
}

async function writeAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  // No fsync: the rename alone makes the file whole-or-absent to a killed agent, which is what the
  // spool is for; an fsync per batch would add disk latency to every delivery for the power-loss case.
  await writeFile(tmp, data);
  await rename(tmp, file);
}
