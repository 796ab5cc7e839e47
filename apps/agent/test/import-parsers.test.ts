import { describe, expect, it } from 'vitest';
import { csvFields } from '../src/import/csv-fields.ts';
import { gatlingBinaryTool, gatlingParser, gatlingTool } from '../src/import/gatling.ts';
import { parseIsoMs } from '../src/import/iso-time.ts';
import { jmeterParser } from '../src/import/jmeter.ts';
import { jmeterXmlParser } from '../src/import/jmeter-xml.ts';
import { k6Parser } from '../src/import/k6.ts';
import { LoadSchedule } from '../src/import/load-schedule.ts';
import { newParsed } from '../src/import/records.ts';
import { vegetaParser } from '../src/import/vegeta.ts';

describe('parseIsoMs', () => {
  it('keeps sub-millisecond digits and applies zone offsets', () => {
    expect(parseIsoMs('2026-11-23T18:00:00.123456789Z')).toBeCloseTo(Date.UTC(2026, 10, 23, 18) + 123.456789, 6);
    expect(parseIsoMs('2026-11-23T20:00:00.5+02:00')).toBe(Date.UTC(2026, 10, 23, 18) + 500);
    expect(parseIsoMs('2026-11-23T13:00:00-05:00')).toBe(Date.UTC(2026, 10, 23, 18));
  });
  it('refuses what is not a full date-time with a zone', () => {
    for (const s of ['2026-13-01T00:00:00Z', '2026-11-23T18:00:00', 'yesterday', '2026-11-23T18:00:00.Z', '2026-11-23 18:00:00Z']) expect(parseIsoMs(s)).toBeNaN();
  });
});

const k6Line = (metric: string, value: number, tags = '{"status":"200"}') => `{"metric":"${metric}","type":"Point","data":{"time":"2026-11-23T18:00:01.5Z","value":${value},"tags":${tags}}}`;

describe('k6Parser', () => {
  const parse = k6Parser();
  const p = newParsed();
  it('reads a request from http_req_duration, a level from vus, and skips the other metrics', () => {
    expect(parse(k6Line('http_req_duration', 12.5, '{"method":"GET","status":"503"}'), p)).toBe('event');
    expect([p.tsMs, p.latencyMs, p.status]).toEqual([Date.UTC(2026, 10, 23, 18, 0, 1) + 500, 12.5, 503]);
    expect(parse(k6Line('vus', 8, '{}'), p)).toBe('level');
    expect(p.level).toBe(8);
    expect(parse(k6Line('http_req_waiting', 3), p)).toBe('skip');
    expect(parse('{"type":"Metric","data":{"name":"vus"},"metric":"vus"}', p)).toBe('skip');
  });
  it('reads http_req_waiting instead when asked', () => {
    expect(k6Parser('http_req_waiting')(k6Line('http_req_waiting', 3), p)).toBe('event');
    expect(p.latencyMs).toBe(3);
  });
  it('refuses garbage, a cut-off line and a request without a status, with a reason', () => {
    expect(parse('garbage', p)).toBe('bad');
    expect(parse(k6Line('http_req_duration', 1).slice(0, 60), p)).toBe('bad');
    expect(p.reason).toMatch(/cut off/);
    expect(parse(k6Line('http_req_duration', 1, '{"method":"GET"}'), p)).toBe('bad');
    expect(p.reason).toMatch(/status/);
    expect(parse(k6Line('http_req_duration', 1).replace('12', 'xx').replace('"value":1', '"value":x'), p)).toBe('bad');
  });
});

describe('vegetaParser', () => {
  const parse = vegetaParser();
  const p = newParsed();
  it('reads JSON: sent + latency is the completion time', () => {
    expect(parse('{"attack":"","seq":0,"code":200,"timestamp":"2026-11-23T18:00:00Z","latency":2500000,"bytes_out":0}', p)).toBe('event');
    expect([p.tsMs, p.latencyMs, p.status]).toEqual([Date.UTC(2026, 10, 23, 18) + 2.5, 2.5, 200]);
  });
  it('reads CSV without losing the milliseconds of a unix-nanosecond time', () => {
    expect(parse('1795456861914224818,0,775354,0,0,"Get ""x"": refused",,,0,GET,http://x/,', p)).toBe('event');
    expect(p.tsMs).toBeCloseTo(1795456861914 + 0.224818 + 0.775354, 4);
    expect(p.status).toBe(0);
  });
  it('refuses what is neither', () => {
    expect(parse('{"seq":1}', p)).toBe('bad');
    expect(parse('hello,world', p)).toBe('bad');
  });
  it('reads Server-Timing from the headers vegeta kept: JSON (any case, several values) and CSV (base64 header block)', () => {
    const json = (headers: unknown) => JSON.stringify({ code: 200, timestamp: '2026-11-23T18:00:00Z', latency: 9_000_000, headers });
    expect(parse(json({ 'Server-Timing': ['queue;dur=1.5, compute;dur=4.25'] }), p)).toBe('event');
    expect([p.computeMs, p.queueMs]).toEqual([4.25, 1.5]);
    expect(parse(json({ 'server-timing': ['queue;dur=2', 'compute;desc="x, y";dur=3'] }), p)).toBe('event');
    expect([p.computeMs, p.queueMs]).toEqual([3, 2]);
    // A request without the header after one with it: nothing carried over.
    expect(parse(json({ 'Content-Type': ['text/plain'] }), p)).toBe('event');
    expect([p.computeMs, p.queueMs]).toEqual([Number.NaN, Number.NaN]);
    // Longer than the request (9 ms) cannot be a part of it: that time is dropped, the request kept (the API would refuse the batch).
    expect(parse(json({ 'Server-Timing': ['compute;dur=90000000, queue;dur=9.5'] }), p)).toBe('event');
    expect([p.computeMs, p.queueMs]).toEqual([Number.NaN, 9.5]);
    const block = Buffer.from('Content-Type: text/plain\r\nServer-Timing: queue;dur=0.5, compute;dur=6.75\r\n\r\n').toString('base64');
    expect(parse(`1795456861914224818,200,9775354,0,2,,b2s=,,0,GET,http://x/,${block}`, p)).toBe('event');
    expect([p.computeMs, p.queueMs]).toEqual([6.75, 0.5]);
    expect(parse('1795456861914224818,200,775354,0,2,,b2s=,,0,GET,http://x/,', p)).toBe('event');
    expect([p.computeMs, p.queueMs]).toEqual([Number.NaN, Number.NaN]);
  });
});

describe('csvFields', () => {
  it('unquotes RFC 4180 fields and refuses an unbalanced quote', () => {
    expect(csvFields('a,"b, ""c""",,d')).toEqual(['a', 'b, "c"', '', 'd']);
    expect(csvFields('a,"b')).toBeNull();
  });
});

describe('jmeterParser', () => {
  const header = 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect';
  it('learns the header, reads allThreads as the level and start + elapsed as the completion time', () => {
    const parse = jmeterParser();
    const p = newParsed();
    expect(parse(header, p)).toBe('skip');
    expect(parse('1795459222154,745,"get, with comma",200,OK,t 1-2,text,true,,263,117,2,3,http://x/,617,0,478', p)).toBe('event');
    expect([p.tsMs, p.latencyMs, p.status, p.level]).toEqual([1795459222899, 745, 200, 3]);
  });
  it('gives status 0 to a sample without an HTTP code, and to a failed assertion on a 200', () => {
    const parse = jmeterParser();
    const p = newParsed();
    parse(header, p);
    expect(parse('1795459222154,3,get,Non HTTP response code: java.net.ConnectException,refused,t 1-1,text,false,,0,0,1,1,http://x/,0,0,3', p)).toBe('event');
    expect(p.status).toBe(0);
    expect(parse('1795459222154,3,get,200,OK,t 1-1,text,false,Assertion failed,10,10,1,1,http://x/,1,0,1', p)).toBe('event');
    expect(p.status).toBe(0);
  });
  it('reads a JTL without a header in JMeter’s default column order, and refuses a formatted date', () => {
    const parse = jmeterParser();
    const p = newParsed();
    expect(parse('1795459222154,5,get,404,Not Found,t 1-1,text,false,,1,1,1,2,http://x/,5,0,1', p)).toBe('event');
    expect([p.status, p.level]).toEqual([404, 2]);
    expect(parse('2026/11/23 18:00:00,5,get,200,OK,t,text,true,,1,1,1,2,http://x/,5,0,1', p)).toBe('bad');
  });
});

describe('gatlingParser', () => {
  it('counts users alive from USER records and reads REQUEST records of both layouts', () => {
    const parse = gatlingParser();
    const p = newParsed();
    expect(parse('RUN\tkb.StepsSimulation\tstepssimulation\t1795459222000\t \t3.10.5', p)).toBe('skip');
    expect(parse('USER\tsteps\tSTART\t1795459222100', p)).toBe('level');
    expect(p.level).toBe(1);
    expect(parse('USER\tsteps\t7\tSTART\t1795459222200\t1795459222200', p)).toBe('level');
    expect(p.level).toBe(2);
    expect(parse('REQUEST\t\tget\t1795459222300\t1795459222320\tOK\t ', p)).toBe('event');
    expect([p.tsMs, p.latencyMs, p.status]).toEqual([1795459222320, 20, 200]);
    expect(parse('REQUEST\t7\t\tget\t1795459222300\t1795459222350\tKO\tstatus.find.is(200), but actually found 500', p)).toBe('event');
    expect([p.latencyMs, p.status]).toEqual([50, 0]);
    expect(parse('USER\tsteps\tEND\t1795459222400', p)).toBe('level');
    expect(p.level).toBe(1);
  });
  it('leaves a binary log (Gatling 3.13+) to the binary reader: the first byte decides', () => {
    const p = newParsed();
    expect(gatlingParser()('\u0000\u0003\u0001abc', p)).toBe('bad');
    expect(gatlingTool.sniff!(Buffer.from([0, 0, 0, 0, 6]))).toBe(gatlingBinaryTool);
    expect(gatlingTool.sniff!(Buffer.from('RUN\tkb.Steps', 'latin1'))).toBe(gatlingTool);
  });
});

describe('LoadSchedule', () => {
  it('places a change halfway between the samples around it, ignores zero load, and looks up any time', () => {
    const s = new LoadSchedule();
    s.add(1000, 0);
    s.add(2000, 1);
    s.add(3000, 1);
    s.add(4000, 2);
    s.add(5000, 2);
    s.add(6000, 0);
    expect(s.levels()).toEqual([1, 2]);
    expect(s.firstAt(2)).toBe(3500);
    expect([s.at(0), s.at(3400), s.at(3600), s.at(9000)]).toEqual([1, 1, 2, 2]);
  });
});

describe('jmeterXmlParser', () => {
  const p = newParsed();
  it('reads top-level samples (told at their closing tag), skips their sub-results and inner lines, and refuses garbage outside a sample', () => {
    const parse = jmeterXmlParser();
    const kinds = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<testResults version="1.2">',
      '<httpSample t="120" it="0" lt="100" ct="3" ts="1795468410394" s="true" lb="a &quot;b&quot;" rc="302" rm="Found" tn="t 1-1" dt="text" by="1" sby="1" ng="3" na="3">',
      '  <httpSample t="20" ts="1795468410400" s="true" lb="redirect" rc="200" na="3"/>',
      '  <java.net.URL>http://127.0.0.1/</java.net.URL>',
      '</httpSample>',
      '<sample t="7" ts="1795468410500" s="false" lb="tcp" rc="Non HTTP response code: java.net.ConnectException" na="1"/>',
      'garbage',
      '<httpSample t="5" ts="1795468410600" s="false" lb="assert" rc="200" na="2">',
      '</httpSample>',
      '',
      '</testResults>',
    ].map((l) => {
      const kind = parse(l, p);
      return kind === 'event' ? `${kind}:${p.tsMs}:${p.latencyMs}:${p.status}:${p.level}` : kind;
    });
    expect(kinds).toEqual([
      'skip',
      'skip',
      'skip',
      'skip',
      'skip',
      'event:1795468410514:120:302:3',
      'event:1795468410507:7:0:1',
      'bad',
      'skip',
      'event:1795468410605:5:0:2',
      'skip',
      'skip',
    ]);
  });
  it('reads Server-Timing from the sample’s own response headers (responseHeaders=true), not a sub-result’s', () => {
    const parse = jmeterXmlParser();
    const lines = [
      '<testResults version="1.2">',
      '<httpSample t="40" ts="1795468410394" s="true" lb="a" rc="200" na="2">',
      '  <httpSample t="5" ts="1795468410394" s="true" lb="redirect" rc="302" na="2">',
      '    <responseHeader class="java.lang.String">HTTP/1.1 302 Found&#xd;',
      'Server-Timing: compute;dur=999&#xd;',
      '</responseHeader>',
      '  </httpSample>',
      '  <responseHeader class="java.lang.String">HTTP/1.1 200 OK&#xd;',
      'Content-Type: text/plain&#xd;',
      'Server-Timing: db;desc=&quot;a, b&quot;;dur=3, queue;dur=12.5&#xd;',
      'server-timing: compute;dur=21.25&#xd;',
      '</responseHeader>',
      '  <responseData class="java.lang.String">&lt;/responseHeader&gt;</responseData>',
      '</httpSample>',
      '<httpSample t="7" ts="1795468410500" s="true" lb="b" rc="200" na="2">',
      '  <responseHeader class="java.lang.String">HTTP/1.1 200 OK</responseHeader>',
      '</httpSample>',
    ];
    const events: Array<[number, number, number]> = [];
    for (const l of lines) if (parse(l, p) === 'event') events.push([p.latencyMs, p.computeMs, p.queueMs]);
    expect(events).toEqual([
      [40, 21.25, 12.5],
      [7, Number.NaN, Number.NaN],
    ]);
  });
  it('tells a sample cut off before its closing tag at the end of the file, with what it had read', () => {
    const parse = jmeterXmlParser();
    expect(parse('<httpSample t="9" ts="1795468410394" s="true" lb="a" rc="200" na="1">', p)).toBe('skip');
    expect(parse('  <responseHeader class="java.lang.String">Server-Timing: compute;dur=4</responseHeader>', p)).toBe('skip');
    expect(parse.end!(p)).toBe('event');
    expect([p.latencyMs, p.computeMs, p.queueMs]).toEqual([9, 4, Number.NaN]);
    expect(parse.end!(p)).toBe('skip');
  });
  it('refuses a sample without ts or t, and a closing tag without its sample', () => {
    const parse = jmeterXmlParser();
    expect(parse('<httpSample lb="x" rc="200"/>', p)).toBe('bad');
    expect(p.reason).toMatch(/ts/);
    expect(parse('</httpSample>', p)).toBe('bad');
  });
});

describe('k6 byte reader against JSON.parse', () => {
  const p = newParsed();
  const parse = k6Parser();
  /** What JSON.parse makes of a k6 line: the reference the positional reader must agree with. */
  const reference = (line: string) => {
    const j = JSON.parse(line) as { data: { time: string; value: number; tags: Record<string, string> } };
    return [Date.parse(j.data.time), j.data.value, Number(j.data.tags.status)];
  };
  it('reads the real status tag when other tags hold escaped quotes, backslashes and non-ASCII text', () => {
    const tricky = [
      '{"group":"","name":"http://x/?q=\\"status\\":\\"999\\"","status":"201","url":"http://x/"}',
      '{"name":"caf\u00e9 \u2603 \\\\\\"","status":"404"}',
      '{"error":"read: connection reset \\"by\\" peer\\n","status":"0"}',
    ];
    for (const tags of tricky) {
      const line = k6Line('http_req_duration', 12.345, tags);
      expect(parse(line, p)).toBe('event');
      const [ms, value, status] = reference(line);
      expect(p.tsMs).toBe(ms);
      expect([p.latencyMs, p.status]).toEqual([value, status]);
    }
  });
  it('reads every number form JSON allows exactly as JSON.parse does', () => {
    for (const v of ['0', '7', '12.5', '0.000123', '123456.789012345', '1.2345678901234567', '1e-7', '2.5E+3', '-0.5']) {
      const line = k6Line('http_req_duration', 0).replace('"value":0', `"value":${v}`);
      const kind = parse(line, p);
      if (Number(v) < 0) expect(kind).toBe('bad');
      else expect(p.latencyMs).toBe(JSON.parse(v));
    }
  });
  it('treats a line that JSON.parse refuses as bad, not as a request', () => {
    for (const line of [k6Line('http_req_duration', 1).replace('"value":1', '"value":'), k6Line('http_req_duration', 1).replace('"status":"200"', '"status":"2x0"')]) {
      expect(parse(line, p)).toBe('bad');
    }
  });
});
