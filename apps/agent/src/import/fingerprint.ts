import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { CHUNK_BYTES } from './line-reader.ts';
import type { LineParser } from './records.ts';
import { newParsed } from './records.ts';
import type { LoadSchedule } from './load-schedule.ts';

export interface FirstPass {
  sha256: string;
  bytes: number;
}

/**
 * The first pass over a file: its SHA-256 (the import's identity: the same bytes are stored once)
 * and, when the tool writes its load schedule into the file, the schedule's samples — found with
 * one indexOf per sample line, so this pass costs little more than reading the file. The second
 * pass then knows each request's level from its send time, whatever order the lines come in.
 */
export async function firstPass(path: string, schedule?: { needle: string; parser: LineParser; into: LoadSchedule; bucketMs?: number }): Promise<FirstPass> {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  const out = newParsed();
  let carry = '';
  let bytes = 0;
  const sample = schedule === undefined ? undefined : schedule.bucketMs === undefined ? (at: number, level: number) => schedule.into.add(at, level) : bucketed(schedule.into, schedule.bucketMs);
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
    if (schedule === undefined) continue;
    const text = carry + decoder.write(chunk);
    const lastNewline = text.lastIndexOf('\n');
    for (let at = text.indexOf(schedule.needle); at !== -1 && at < lastNewline; at = text.indexOf(schedule.needle, at + 1)) {
      const start = text.lastIndexOf('\n', at) + 1;
      const end = text.indexOf('\n', at);
      const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
      if (schedule.parser(line, out) === 'level') sample!(out.tsMs, out.level);
      at = end;
    }
    carry = text.slice(lastNewline + 1);
  }
  if (sample && 'flush' in sample) (sample as Bucketed).flush();
  return { sha256: hash.digest('hex'), bytes };
}

type Bucketed = ((at: number, level: number) => void) & { flush(): void };

/** The most load seen in each bucket, given to the schedule as one sample at the bucket's middle. */
function bucketed(into: LoadSchedule, bucketMs: number): Bucketed {
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
  return Object.assign(add, { flush });
}
