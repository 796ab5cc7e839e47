import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { KneeboardApi } from '@kneeboard/agent-sdk';
import { encodeArrowColumns, decodeArrowColumns, ANY_TIME, namesOf, type EventColumns } from '@kneeboard/event-wire';
import { gatlingParser } from '../src/import/gatling.ts';
import { jmeterParser } from '../src/import/jmeter.ts';
import { jmeterXmlParser } from '../src/import/jmeter-xml.ts';
import { k6ByteParser, k6Parser } from '../src/import/k6.ts';
import { ohaTool } from '../src/import/oha.ts';
import { newParsed, type ByteLineParser, type LineParser } from '../src/import/records.ts';
import { requestName } from '../src/import/request-name.ts';
import { Uploader } from '../src/import/uploader.ts';
import { vegetaByteParser, vegetaParser } from '../src/import/vegeta.ts';
import { fixture, fixturePath } from './support/load-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-import-names-'));
const sample = (name: string) => {
  const bytes = readFileSync(fixturePath(name));
  return name.endsWith('.gz') ? gunzipSync(bytes) : bytes;
};

/** Every request's name in a committed sample, counted, read line by line as the importer reads it. */
function namesIn(bytes: Buffer, parse: ByteLineParser): Map<string, number> {
  const out = newParsed();
  const seen = new Map<string, number>();
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    if (parse(bytes, start, end, out) === 'event') seen.set(out.name, (seen.get(out.name) ?? 0) + 1);
    start = end + 1;
  }
  if (parse.end?.(out) === 'event') seen.set(out.name, (seen.get(out.name) ?? 0) + 1);
  return seen;
}
const textParser = (p: LineParser): ByteLineParser => {
  const byLine: ByteLineParser = (b, s, e, out) => p(Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('latin1'), out);
  byLine.end = (out) => p.end?.(out) ?? 'skip';
  return byLine;
};

describe('importers keep the tool’s own request names (committed samples)', () => {
  it('k6: the name tag (k6 sets it to the URL unless the script names the request)', () => {
    const names = namesIn(sample('k6-ramp.json.gz'), k6ByteParser());
    expect([...names.keys()]).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/)]);
  });

  it('vegeta: method and URL, from JSON and from CSV alike', () => {
    const json = namesIn(sample('vegeta-r50.json.gz'), vegetaByteParser());
    const csv = namesIn(sample('vegeta-r50.csv.gz'), textParser(vegetaParser()));
    expect([...json.keys()]).toEqual([expect.stringMatching(/^GET http:\/\/127\.0\.0\.1:\d+\/$/)]);
    expect(csv).toEqual(json);
  });

  it('JMeter: the sampler label, from CSV and XML alike', () => {
    expect([...namesIn(sample('jmeter-ramp.jtl'), textParser(jmeterParser())).keys()]).toEqual(['get']);
    expect([...namesIn(sample('jmeter-ramp.xml.jtl'), textParser(jmeterXmlParser())).keys()]).toEqual(['get']);
  });

  it('Gatling (text log): the request name', () => {
    expect([...namesIn(sample('gatling-3.11-steps.simulation.tsv'), textParser(gatlingParser())).keys()]).toEqual(['get']);
  });

  it('oha: the URL oha requested', async () => {
    const path = join(dir, 'oha-c2.db');
    fixture('oha-c2.db.gz', path);
    const format = ohaTool.format;
    if (format.kind !== 'rows') throw new Error('oha reads rows');
    const out = newParsed();
    const names = new Set<string>();
    await format.read(path, out, (kind) => kind === 'event' && names.add(out.name), async () => {});
    expect([...names]).toEqual(['/']);
  });
});

describe('request names as the importers read them', () => {
  it('k6: a name tag with escapes and non-ASCII text; the url tag where there is no name', () => {
    const out = newParsed();
    const line = (tags: string) => `{"metric":"http_req_duration","type":"Point","data":{"time":"2026-11-23T18:31:28.130Z","value":3.5,"tags":{${tags},"status":"200"}}}`;
    expect(k6Parser()(line('"name":"GET /users/{id} \\"ü\\" \\u003cx\\u003e","url":"http://h/users/7"'), out)).toBe('event');
    expect(out.name).toBe('GET /users/{id} "ü" <x>');
    k6Parser()(line('"url":"http://h/cart"'), out);
    expect(out.name).toBe('http://h/cart');
    k6Parser()(line('"method":"GET"'), out);
    expect(out.name).toBe('');
  });

  it('cut to 200 characters (never inside a surrogate pair), and none where a label could not hold it', () => {
    const long = requestName(`http://h/${'a'.repeat(300)}`);
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
    expect(requestName(`${'b'.repeat(198)}😀tail`)).toBe(`${'b'.repeat(198)}…`);
    expect(requestName('GET /\u001b[2J')).toBe('');
    expect(requestName('checkout')).toBe('checkout');
  });

  it('JMeter: an XML label with entities, and a CSV label in UTF-8', () => {
    const out = newParsed();
    const xml = jmeterXmlParser();
    expect(xml('<httpSample t="5" ts="1795468410394" s="true" lb="search &amp; filter" rc="200" na="2"/>', out)).toBe('event');
    expect(out.name).toBe('search & filter');
    const csv = textParser(jmeterParser());
    const bytes = Buffer.from('1795459311222,405,Straße,200,OK,t 1-1,text,true,,264,117,2,2,http://h/,368,0,255', 'utf8');
    expect(csv(bytes, 0, bytes.length, out)).toBe('event');
    expect(out.name).toBe('Straße');
  });

  it('the uploader sends names as the batch’s name column, and no column when no request has one', async () => {
    const sent: EventColumns[] = [];
    const api = { postEventColumns: async (_run: string, _id: string, _agent: string, c: EventColumns) => (sent.push(c), { accepted: c.length, duplicate: false }) } as unknown as KneeboardApi;
    const up = new Uploader({ api, runId: 'r', agentId: 'a', batchEvents: 3, batchId: (n) => `b${n}`, inFlight: 1 });
    const T = 1_800_000_000_000;
    for (const [i, name] of ['search', '', 'cart', 'search'].entries()) up.add(1, T + i, 1, 200, Number.NaN, Number.NaN, name);
    up.add(1, T + 9, 1, 200);
    up.add(1, T + 10, 1, 200);
    expect(await up.drain(5_000)).toBe(true);
    const decoded = sent.map((c) => decodeArrowColumns(encodeArrowColumns(c), ANY_TIME));
    expect(decoded.map((c) => namesOf(c))).toEqual([
      ['search', '', 'cart'],
      ['search', '', ''],
    ]);
    // A batch in which no request has a name carries no name column.
    up.add(1, T + 11, 1, 200);
    expect(await up.drain(5_000)).toBe(true);
    expect(sent[2]!.name).toBeUndefined();
  });
});
