import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstPass } from '../src/import/fingerprint.ts';
import { k6Tool } from '../src/import/k6.ts';
import { LoadSchedule } from '../src/import/load-schedule.ts';
import { newParsed } from '../src/import/records.ts';

/** A schedule that also keeps every sample it was given, in order. */
class Recorded extends LoadSchedule {
  readonly samples: Array<[number, number]> = [];
  override add(at: number, level: number): void {
    this.samples.push([at, level]);
    super.add(at, level);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'kb-first-pass-'));
const T0 = Date.UTC(2026, 10, 23, 18);

/** k6-like output over several 1 MiB read chunks: a vus sample every other line, the rest padding of varying length, so sample lines straddle chunk ends. */
function k6File(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const time = new Date(T0 + i * 7).toISOString();
    if (i % 2 === 0) out.push(`{"metric":"vus","type":"Point","data":{"time":"${time}","value":${1 + Math.floor(i / 9000)},"tags":null}}`);
    else out.push(`{"metric":"data_received","type":"Point","data":{"time":"${time}","value":${i},"tags":{"pad":"${'x'.repeat(i % 97)}"}}}`);
  }
  const path = join(dir, `k6-${lines}.json`);
  writeFileSync(path, `${out.join('\n')}\n`);
  return path;
}

describe('the first pass of an import', () => {
  it('hashes the whole file and finds every schedule sample, lines cut by chunk ends included', async () => {
    const path = k6File(60_000);
    const bytes = readFileSync(path);
    expect(bytes.length).toBeGreaterThan(3 * 2 ** 20);
    const format = k6Tool().format;
    if (format.kind !== 'lines') throw new Error('k6 reads lines');

    const found = new Recorded();
    const pass = await firstPass(path, { needle: format.scheduleNeedle!, parser: format.open(), into: found });
    expect(pass).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });

    // The same samples, line by line.
    const expected = new Recorded();
    const parse = format.open();
    const p = newParsed();
    let at = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; at = nl + 1, nl = bytes.indexOf(10, at)) {
      if (parse(bytes, at, nl, p) === 'level') expected.add(p.tsMs, p.level);
    }
    expect(found.samples).toHaveLength(30_000);
    expect(found.samples).toEqual(expected.samples);
    expect(expected.at(T0 + 59_000 * 7)).toBe(7);
  });

  it('hashes a file with no schedule to scan', async () => {
    const path = join(dir, 'plain.csv');
    writeFileSync(path, 'a,b\n1,2\n');
    expect(await firstPass(path)).toEqual({ sha256: createHash('sha256').update('a,b\n1,2\n').digest('hex'), bytes: 8 });
  });
});
