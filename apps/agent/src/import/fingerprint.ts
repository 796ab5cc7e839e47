import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
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
 * one native Buffer#indexOf per sample line, never decoding the rest, so this pass costs little
 * more than reading the file. The second pass then knows each request's level from its send
 * time, whatever order the lines come in.
 */
export async function firstPass(path: string, schedule?: ScheduleScan): Promise<FirstPass> {
  const hash = createHash('sha256');
  const out = newParsed();
  const needle = schedule === undefined ? undefined : Buffer.from(schedule.needle, 'latin1');
  let carry: Buffer | null = null;
  let bytes = 0;
  const sample = schedule === undefined ? undefined : scheduleSampler(schedule.into, schedule.bucketMs);
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
    if (schedule === undefined || needle === undefined) continue;
    const buf: Buffer = carry === null ? chunk : Buffer.concat([carry, chunk]);
    const lastNewline = buf.lastIndexOf(10);
    for (let at = buf.indexOf(needle); at !== -1 && at < lastNewline; at = buf.indexOf(needle, at + 1)) {
      const start = buf.lastIndexOf(10, at) + 1;
      const end = buf.indexOf(10, at);
      if (schedule.parser(buf, start, end > start && buf[end - 1] === 13 ? end - 1 : end, out) === 'level') sample!.add(out.tsMs, out.level);
      at = end;
    }
    carry = lastNewline + 1 < buf.length ? Buffer.from(buf.subarray(lastNewline + 1)) : null;
  }
  sample?.flush();
  return { sha256: hash.digest('hex'), bytes };
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
