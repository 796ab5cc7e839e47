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
export async function firstPass(path: string, schedule?: { needle: string; parser: LineParser; into: LoadSchedule }): Promise<FirstPass> {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  const out = newParsed();
  let carry = '';
  let bytes = 0;
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
      if (schedule.parser(line, out) === 'level') schedule.into.add(out.tsMs, out.level);
      at = end;
    }
    carry = text.slice(lastNewline + 1);
  }
  return { sha256: hash.digest('hex'), bytes };
}
