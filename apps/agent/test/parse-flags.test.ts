import { InvalidArgumentError } from 'commander';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectHeader, collectTag, parseBody, parseDuration, parseLevels, parseMetricNames, parseNumbers, parseRequestFile } from '../src/cli/parse-flags.ts';
import { toSweepInput, type SweepFlags } from '../src/cli/sweep-flags.ts';

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

describe('parseNumbers and parseMetricNames', () => {
  it('read rates and knob values, decimals allowed', () => {
    expect(parseNumbers('100, 250.5,1000')).toEqual([100, 250.5, 1_000]);
    expect(() => parseNumbers('100,x')).toThrow(/not a list of numbers/);
    expect(() => parseNumbers('-5')).toThrow(/not a list of numbers/);
  });

  it('read Server-Timing metric names in priority order', () => {
    expect(parseMetricNames('db')).toEqual(['db']);
    expect(parseMetricNames('app, total')).toEqual(['app', 'total']);
    expect(() => parseMetricNames('a b')).toThrow(/metric names/);
  });
});

describe('parseRequestFile', () => {
  const write = (content: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'kneeboard-req-')), 'req.json');
    writeFileSync(file, content);
    return file;
  };

  it('reads method, path (or url), headers and body; a JSON body is serialised with a JSON content-type', () => {
    const file = write(JSON.stringify({ method: 'POST', url: '/search?q=1', headers: { 'X-Trace': 'on' }, body: { q: 'kneeboard' } }));
    expect(parseRequestFile(file)).toEqual({
      method: 'POST',
      path: '/search?q=1',
      headers: { 'x-trace': 'on', 'content-type': 'application/json' },
      body: '{"q":"kneeboard"}',
    });
    expect(parseRequestFile(write('{"path": "/x", "body": "raw", "headers": {"content-type": "text/plain"}}'))).toEqual({
      path: '/x',
      body: 'raw',
      headers: { 'content-type': 'text/plain' },
    });
  });

  it.each([
    ['not json', /is not JSON/],
    ['[1]', /must hold a JSON object/],
    ['{"method": "GE T"}', /"method" must be an HTTP method/],
    ['{"path": "search"}', /"path" must be a path starting with \//],
    ['{"headers": {"x": 1}}', /header "x" must be/],
  ])('rejects %j', (content, message) => {
    expect(() => parseRequestFile(write(content))).toThrow(message);
  });
});

describe('toSweepInput: which loop and which knob follow from the flags', () => {
  const base = { target: 'http://t/', arrivals: 'uniform', thinkTime: 0, readyTimeout: 1, duration: 1, warmup: 0, service: 's', release: 'r', timeout: 1, api: 'http://a', web: 'http://w', spoolDir: 'x', flushInterval: 500, deliveryTimeout: 1 } as SweepFlags;
  const input = (f: Partial<SweepFlags>) => {
    const r = toSweepInput({ ...base, ...f });
    if ('error' in r) throw new Error(r.error);
    return r.input;
  };
  const error = (f: Partial<SweepFlags>) => {
    const r = toSweepInput({ ...base, ...f });
    return 'error' in r ? r.error : null;
  };

  it('closed loop by default, over -c or --levels', () => {
    expect(input({})).toMatchObject({ loadModel: 'closed', levels: [1, 2, 4, 8, 16], hold: undefined });
    expect(input({ concurrency: [4, 8] })).toMatchObject({ loadModel: 'closed', levels: [4, 8] });
    expect(input({ levels: [3] })).toMatchObject({ loadModel: 'closed', levels: [3] });
  });

  it('open loop with --rate', () => {
    expect(input({ rate: [100, 200] })).toMatchObject({ loadModel: 'open', levels: [100, 200] });
  });

  it('a --param sweep holds one concurrency or one rate', () => {
    expect(input({ param: 'workers', levels: [1, 2], concurrency: [16], beforeLevel: 'x' })).toMatchObject({ loadModel: 'closed', parameter: 'workers', levels: [1, 2], hold: 16 });
    expect(input({ param: 'workers', levels: [1, 2], rate: [300] })).toMatchObject({ loadModel: 'open', hold: 300 });
    expect(error({ param: 'workers', levels: [1, 2] })).toMatch(/give the load to hold/);
    expect(error({ param: 'workers', concurrency: [16] })).toMatch(/--levels: give the values of --param workers/);
    expect(error({ param: 'workers', levels: [1], concurrency: [8, 16] })).toMatch(/with --param, give one value/);
  });

  it('refuses flags that contradict each other', () => {
    expect(error({ rate: [1], concurrency: [1] })).toMatch(/give one of them/);
    expect(error({ rate: [1], levels: [1] })).toMatch(/the rates are the levels/);
    expect(error({ levels: [1], concurrency: [1] })).toMatch(/give one of them/);
  });

  it('passes --engine-binary through as the native engine to run (the default left to the sweep)', () => {
    expect(input({ engineBinary: '/opt/kb/engine' }).engineBinary).toBe('/opt/kb/engine');
    expect(input({}).engineBinary).toBeUndefined();
  });

  it('lets flags win over the request file, merging headers', () => {
    const i = input({ requestFile: { method: 'PUT', path: '/p', headers: { a: '1', b: '2' }, body: 'file' }, header: { b: 'flag' }, method: 'POST' });
    expect(i.request).toMatchObject({ method: 'POST', path: '/p', headers: { a: '1', b: 'flag' }, body: 'file' });
  });
});
