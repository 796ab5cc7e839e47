import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { CHUNK_BYTES } from './byte-lines.ts';
import type { ByteLineParser } from './records.ts';
import { newParsed } from './records.ts';
import type { LoadSchedule } from './load-schedule.ts';

export interface FirstPass {
  sha256: string;
  bytes: number;
}

export interface ScheduleScan {
  needle: string;
  parser: ByteLineParser;
  into: LoadSchedule;
  bucketMs?: number | undefined;
}

/**
 * The first pass over a file: its SHA-256 (the import's identity: the same bytes are stored once)
 * and, when the tool writes its load schedule into the file, the schedule's samples — found with
 * one native Buffer#indexOf per sample line, never decoding the rest. The two run side by side:
 * the hash in a worker thread reading the file on its own, the scan here (on k6's full output,
 * 3 GB for a million requests, they took 3.5 s and 1.6 s one after the other). The second pass
 * then knows each request's level from its send time, whatever order the lines come in.
 */
export async function firstPass(path: string, schedule?: ScheduleScan): Promise<FirstPass> {
  if (schedule === undefined) return hashFile(path);
  const [pass] = await Promise.all([hashInWorker(path), scanSchedule(path, schedule)]);
  return pass;
}

async function hashFile(path: string): Promise<FirstPass> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** The same hash in a worker thread (plain script: the CLI ships as one bundle, with no worker file beside it). */
const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { createReadStream } = require('node:fs');
const hash = createHash('sha256');
let bytes = 0;
createReadStream(workerData.path, { highWaterMark: workerData.chunk })
  .on('data', (c) => { hash.update(c); bytes += c.length; })
  .on('end', () => parentPort.postMessage({ sha256: hash.digest('hex'), bytes }))
  .on('error', (err) => parentPort.postMessage({ error: err.message }));
`;

function hashInWorker(path: string): Promise<FirstPass> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(HASH_WORKER, { eval: true, workerData: { path, chunk: CHUNK_BYTES } });
    worker.once('message', (m: FirstPass | { error: string }) => {
      void worker.terminate();
      if ('error' in m) reject(new Error(m.error));
      else resolve(m);
    });
    worker.once('error', reject);
  });
}

/** The schedule's samples: each line holding the needle, parsed; a line cut by a chunk's end is joined to the next chunk's start. */
async function scanSchedule(path: string, schedule: ScheduleScan): Promise<void> {
  const out = newParsed();
  const needle = Buffer.from(schedule.needle, 'latin1');
  const sample = scheduleSampler(schedule.into, schedule.bucketMs);
  const take = (buf: Buffer, start: number, end: number) => {
    if (schedule.parser(buf, start, end > start && buf[end - 1] === 13 ? end - 1 : end, out) === 'level') sample.add(out.tsMs, out.level);
  };
  /** Every needle line wholly inside buf[from, to), `to` just after a newline. */
  const scan = (buf: Buffer, from: number, to: number) => {
    for (let at = buf.indexOf(needle, from); at !== -1 && at < to; at = buf.indexOf(needle, at + 1)) {
      const start = buf.lastIndexOf(10, at) + 1;
      const end = buf.indexOf(10, at);
      take(buf, Math.max(start, from), end);
      at = end;
    }
  };
  let carry: Buffer | null = null;
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    let from = 0;
    if (carry !== null) {
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      // Only the one line that straddles the two chunks is copied.
      const joined = Buffer.concat([carry, chunk.subarray(0, nl + 1)]);
      scan(joined, 0, joined.length);
      from = nl + 1;
    }
    const lastNewline = chunk.lastIndexOf(10);
    if (lastNewline < from) {
      carry = Buffer.from(chunk.subarray(from));
      continue;
    }
    scan(chunk, from, lastNewline + 1);
    carry = lastNewline + 1 < chunk.length ? Buffer.from(chunk.subarray(lastNewline + 1)) : null;
  }
  sample.flush();
}

export interface ScheduleSampler {
  add(at: number, level: number): void;
  /** The last bucket's sample (bucketed schedules only hand a bucket over once the next begins). */
  flush(): void;
}

/** Feeds a schedule its samples: as they come, or as the most load in each bucket of `bucketMs`. */
export function scheduleSampler(into: LoadSchedule, bucketMs: number | undefined): ScheduleSampler {
  if (bucketMs === undefined) return { add: (at, level) => into.add(at, level), flush: () => undefined };
  let bucket = Number.NaN;
  let max = 0;
  let current = 0;
  const flush = () => {
    if (!Number.isNaN(bucket)) into.add(bucket * bucketMs + bucketMs / 2, max);
  };
  const add = (at: number, level: number) => {
    const b = Math.floor(at / bucketMs);
    if (b !== bucket) {
      flush();
      // Buckets with no record in them hold the load the last record left.
      for (let gap = bucket + 1; gap < b; gap++) into.add(gap * bucketMs + bucketMs / 2, current);
      bucket = b;
      max = current;
    }
    current = level;
    if (level > max) max = level;
  };
  return { add, flush };
}
