import { createReadStream } from 'node:fs';
import { SweepError } from '../sweep/sweep-error.ts';
import { CHUNK_BYTES } from './byte-lines.ts';
import { scheduleSampler } from './fingerprint.ts';
import { LoadSchedule } from './load-schedule.ts';
import type { LineKind, Parsed } from './records.ts';

/**
 * Gatling's binary `simulation.log` (Gatling 3.13 and later; 3.0–3.12 write the text log). The
 * format is Gatling's own (LogFileDataWriter, read back by its LogFileReader), big-endian:
 * records of a one-byte header —
 *   0 RUN:     string version, string simulation, long start (epoch ms), string description,
 *              int n + n strings (scenarios), int n + n × (int length + bytes) (assertions)
 *   1 REQUEST: int n + n cached strings (groups), cached string name, int start, int end
 *              (ms after the run's start), bool OK, cached string message
 *   2 USER:    int scenario, bool start, int time
 *   3 GROUP:   int n + n cached strings, int start, int end, int cumulated, bool OK
 *   4 ERROR:   cached string message, int time
 * A string is an int length (0: empty) then that many bytes and a one-byte coder; a cached string
 * is an int index: positive, the string follows (and gets that index); negative, it was sent
 * before. Only the times and OK/KO are kept; strings are skipped, never decoded.
 */
const RUN = 0;
const REQUEST = 1;
const USER = 2;
const GROUP = 3;
const ERROR = 4;

/** Thrown inside a record when the buffer ends mid-record: read more, then parse it again. */
const NEED_MORE = Symbol('need more bytes');

class Cursor {
  at = 0;
  /** The RUN record's start: every other time is ms after it. */
  runStart = Number.NaN;
  constructor(readonly b: Buffer) {}
  need(n: number): void {
    if (this.at + n > this.b.length) throw NEED_MORE;
  }
  byte(): number {
    this.need(1);
    return this.b[this.at++]!;
  }
  int(): number {
    this.need(4);
    const v = this.b.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  long(): number {
    this.need(8);
    const v = Number(this.b.readBigInt64BE(this.at));
    this.at += 8;
    return v;
  }
  skip(n: number): void {
    this.need(n);
    this.at += n;
  }
  string(): void {
    const n = this.int();
    if (n < 0) throw new Error(`a string of negative length at byte ${this.at}`);
    if (n > 0) this.skip(n + 1);
  }
  cachedString(): void {
    if (this.int() > 0) this.string();
  }
  groups(): void {
    const n = this.int();
    if (n < 0 || n > 1000) throw new Error(`${n} groups at byte ${this.at}`);
    for (let i = 0; i < n; i++) this.cachedString();
  }
}

export type GatlingRecord = { kind: 'request'; start: number; end: number; ok: boolean } | { kind: 'user'; start: boolean; at: number } | { kind: 'other' };

/**
 * Calls `onRecord` for every record of the file, in constant memory (a chunk and one cut-off
 * record carried over). Times are absolute epoch ms. A file cut off mid-record ends with
 * `truncated`; a header byte that is no record stops with an error naming the byte offset.
 */
export function readGatlingBinary(path: string, onRecord: (r: GatlingRecord, n: number) => void | Promise<void>): Promise<{ records: number; truncated: boolean }> {
  return decodeGatlingBinary(createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>, path, onRecord);
}

/** The records of a binary log arriving in chunks of any size: a file, or one still being written (--follow). */
export async function decodeGatlingBinary(
  chunks: AsyncIterable<Buffer>,
  path: string,
  onRecord: (r: GatlingRecord, n: number) => void | Promise<void>,
): Promise<{ records: number; truncated: boolean }> {
  let carry: Buffer | null = null;
  let runStart = Number.NaN;
  let records = 0;
  let offset = 0;
  for await (const chunk of chunks) {
    const buf: Buffer = carry === null ? chunk : Buffer.concat([carry, chunk]);
    const c = new Cursor(buf);
    for (;;) {
      const begin = c.at;
      if (begin === buf.length) break;
      let record: GatlingRecord;
      try {
        record = readRecord(c, runStart, offset + begin);
      } catch (err) {
        if (err !== NEED_MORE) throw err;
        c.at = begin;
        break;
      }
      if (records === 0) {
        if (record.kind !== 'other' || Number.isNaN(c.runStart)) throw new SweepError('config', `${path} does not start with a Gatling RUN record: not a binary simulation.log`);
        runStart = c.runStart;
      }
      records += 1;
      const wait = onRecord(record, records);
      if (wait) await wait;
    }
    offset += c.at;
    carry = c.at < buf.length ? Buffer.from(buf.subarray(c.at)) : null;
  }
  return { records, truncated: carry !== null };
}

/** Reads one record; RUN sets the cursor's runStart. */
function readRecord(c: Cursor, runStart: number, offset: number): GatlingRecord {
  const header = c.byte();
  switch (header) {
    case RUN: {
      c.string();
      c.string();
      const start = c.long();
      c.string();
      const scenarios = c.int();
      for (let i = 0; i < scenarios; i++) c.string();
      const assertions = c.int();
      for (let i = 0; i < assertions; i++) c.skip(c.int());
      c.runStart = start;
      return { kind: 'other' };
    }
    case REQUEST: {
      c.groups();
      c.cachedString();
      const start = c.int();
      const end = c.int();
      const ok = c.byte() === 1;
      c.cachedString();
      return { kind: 'request', start: runStart + start, end: runStart + end, ok };
    }
    case USER: {
      c.int();
      const start = c.byte() === 1;
      return { kind: 'user', start, at: runStart + c.int() };
    }
    case GROUP:
      c.groups();
      c.skip(13);
      return { kind: 'other' };
    case ERROR:
      c.cachedString();
      c.int();
      return { kind: 'other' };
    default:
      throw new SweepError('config', `byte ${offset}: ${header} is not a Gatling record header (a damaged or unknown simulation.log)`);
  }
}

/** Users alive are read as the most in each second, as Gatling's own active-users chart shows them. */
export const GATLING_SCHEDULE_BUCKET_MS = 1_000;

const CUT_OFF = 'cut off: the last record is incomplete (Gatling was stopped mid-write)';

/** A REQUEST record into `out` (completion time, latency, 200 or 0), at `level`. */
function requestRow(r: Extract<GatlingRecord, { kind: 'request' }>, out: Parsed, level: number): LineKind {
  if (r.end < r.start) {
    out.reason = 'ends before it starts';
    return 'bad';
  }
  out.tsMs = r.end;
  out.latencyMs = r.end - r.start;
  out.status = r.ok ? 200 : 0;
  out.level = level;
  return 'event';
}

/** What a followed binary log gives the importer: requests (filled into `out`), and the users alive as they change. */
export interface GatlingFollowSink {
  row(kind: LineKind, n: number): void;
  /** The users alive from `at` on. */
  schedule(at: number, users: number): void;
}

/**
 * `--follow` on a binary log Gatling is still writing: one pass, as the records arrive. A request's
 * level is not known here (the schedule is still being written): it goes out with NaN, and the
 * caller's live schedule gives it the users alive when it was sent.
 */
export async function followGatlingBinary(chunks: AsyncIterable<Buffer>, path: string, out: Parsed, sink: GatlingFollowSink): Promise<void> {
  let users = 0;
  const r = await decodeGatlingBinary(chunks, path, (rec, n) => {
    if (rec.kind === 'user') {
      users += rec.start ? 1 : -1;
      sink.schedule(rec.at, users);
    }
    sink.row(rec.kind === 'request' ? requestRow(rec, out, Number.NaN) : 'skip', n);
  });
  if (r.truncated) {
    out.reason = CUT_OFF;
    sink.row('bad', r.records + 1);
  }
}

/**
 * The importer's reader for a binary log: one pass for the users alive (the load schedule, the most
 * in each second, as for the text log), one for the requests, each given its level by send time.
 */
export async function readGatlingBinaryRows(path: string, out: Parsed, onRow: (kind: LineKind, row: number) => void, pause: (fractionDone: number) => Promise<void>): Promise<void> {
  const schedule = new LoadSchedule();
  const sampler = scheduleSampler(schedule, GATLING_SCHEDULE_BUCKET_MS);
  let users = 0;
  const first = await readGatlingBinary(path, (r) => {
    if (r.kind === 'user') {
      users += r.start ? 1 : -1;
      sampler.add(r.at, users);
    }
  });
  sampler.flush();
  await readGatlingBinary(path, (r, n) => {
    onRow(r.kind === 'request' ? requestRow(r, out, schedule.isEmpty ? Number.NaN : schedule.at(r.start)) : 'skip', n);
    return n % 20_000 === 0 ? pause(n / first.records) : undefined;
  });
  if (first.truncated) {
    out.reason = CUT_OFF;
    onRow('bad', first.records + 1);
  }
}
