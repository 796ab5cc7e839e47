import { InvalidArgumentError } from 'commander';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectHeader, collectTag, parseBody, parseDuration, parseLevels } from '../src/cli/parse-flags.ts';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['1.5s', 1_500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['0', 0],
    [' 3s ', 3_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['10', '10x', 's', '-1s', '1 s', '', '1e3ms'])('rejects %j with a hint', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidArgumentError);
    expect(() => parseDuration(text)).toThrow(/e\.g\. 500ms, 10s, 2m/);
  });
});

describe('parseLevels', () => {
  it('reads a comma-separated list in the given order', () => {
    expect(parseLevels('1,2,4,8,16')).toEqual([1, 2, 4, 8, 16]);
    expect(parseLevels('16, 4 ,1')).toEqual([16, 4, 1]);
    expect(parseLevels('3')).toEqual([3]);
  });

  it.each(['1,,2', '1,2.5', 'a', '', '1;2', '-1'])('rejects %j', (text) => {
    expect(() => parseLevels(text)).toThrow(/not a list of levels/);
  });
});

describe('collectTag and collectHeader', () => {
  it('collect repeated flags into records', () => {
    expect(collectTag('region=eu', collectTag('host=a=b'))).toEqual({ host: 'a=b', region: 'eu' });
    expect(collectHeader('Authorization: Bearer x:y', collectHeader('Content-Type: application/json'))).toEqual({
      'content-type': 'application/json',
      authorization: 'Bearer x:y',
    });
  });

  it('reject malformed values', () => {
    expect(() => collectTag('=x')).toThrow(/key=value/);
    expect(() => collectTag('novalue')).toThrow(/key=value/);
    expect(() => collectHeader('no colon')).toThrow(/Name: value/);
    expect(() => collectHeader('bad name: x')).toThrow(/Name: value/);
  });
});

describe('parseBody', () => {
  it('takes text as is, and @path as the file contents', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kneeboard-'));
    const file = join(dir, 'body.json');
    writeFileSync(file, '{"k":1}');
    expect(parseBody('{"a":1}')).toBe('{"a":1}');
    expect(parseBody(`@${file}`).toString()).toBe('{"k":1}');
    expect(() => parseBody(`@${join(dir, 'missing')}`)).toThrow(/cannot read the body file/);
  });
});
