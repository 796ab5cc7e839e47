import { describe, expect, it } from 'vitest';
import { newParsed } from '../src/import/records.ts';
import { vegetaByteParser, vegetaParser } from '../src/import/vegeta.ts';
import { scanVegetaJson } from '../src/import/vegeta-json-bytes.ts';

const bytes = (s: string) => Buffer.from(s, 'latin1');
const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ attack: 'a', seq: 1, code: 200, timestamp: '2026-11-23T18:00:00.123456789Z', latency: 2_500_000, bytes_out: 0, bytes_in: 12, error: '', body: null, method: 'GET', url: 'http://x/', headers: { 'Content-Type': ['text/plain'] }, ...fields });

/** What the byte reader and the JSON.parse reader make of a line: they must never differ. */
function both(text: string) {
  const buf = bytes(text);
  const [a, b] = [newParsed(), newParsed()];
  const kindBytes = vegetaByteParser()(buf, 0, buf.length, a);
  const kindText = vegetaParser()(text, b);
  return { kindBytes, kindText, a, b };
}

describe('scanVegetaJson', () => {
  it('reads code, timestamp and latency of a vegeta encode line', () => {
    const f = scanVegetaJson(bytes(line({})), 0, line({}).length);
    expect(f).toEqual({ sentMs: Date.UTC(2026, 10, 23, 18) + 123.456789, latencyNs: 2_500_000, code: 200 });
  });

  it('takes only the object’s own keys: not a header named latency, not the words inside a string', () => {
    const tricky = line({ url: 'http://x/?q="latency":1,"code":9', error: 'say \\"code\\":7 \\\\', headers: { latency: ['5'], code: ['404'] } });
    const f = scanVegetaJson(bytes(tricky), 0, tricky.length);
    expect(f).toEqual({ sentMs: Date.UTC(2026, 10, 23, 18) + 123.456789, latencyNs: 2_500_000, code: 200 });
  });

  it('finds the Server-Timing values inside headers, whatever the case of the name, and nothing elsewhere', () => {
    const text = line({ url: 'http://x/?"Server-Timing":["compute;dur=9"]', headers: { 'Content-Type': ['x'], 'server-timing': ['queue;dur=1', 'compute;dur=2'] } });
    expect(scanVegetaJson(bytes(text), 0, text.length)?.serverTiming).toEqual(['queue;dur=1', 'compute;dur=2']);
    const none = line({ error: '"Server-Timing":["compute;dur=9"]' });
    expect(scanVegetaJson(bytes(none), 0, none.length)?.serverTiming).toBeUndefined();
  });

  it('leaves to JSON.parse what it does not read as it expects: a line cut off, a missing field, two objects', () => {
    const whole = line({});
    for (const text of [whole.slice(0, -1), whole.slice(0, whole.indexOf('"headers"') + 12), JSON.stringify({ code: 200, latency: 1 }), `${whole}${whole}`]) {
      expect(scanVegetaJson(bytes(text), 0, text.length), text).toBeNull();
    }
  });

  it('gives the importer the same answer as JSON.parse on good, odd and bad lines', () => {
    const lines = [
      line({}),
      line({ code: 0, error: 'dial tcp: connection refused' }),
      line({ latency: 2.5 }),
      line({ url: 'http://x/"latency":1' }),
      `${line({})}  `,
      line({ headers: { 'Server-Timing': ['queue;dur=1, compute;dur=2.5'], 'Content-Type': ['x'] } }),
      line({ headers: { 'content-type': ['x'], 'server-timing': ['compute;desc="a \\"b\\", c";dur=7', 'queue;dur=3'] } }),
      line({ headers: { 'Server-Timing': 'not an array' } }),
      line({ headers: { 'Server-Timing': [1] } }),
      line({ headers: { 'Server-Timing': [] } }),
      line({ headers: null }),
      line({}).slice(0, -3),
      '{"timestamp":"yesterday","latency":1,"code":200}',
      '{}',
    ];
    for (const text of lines) {
      const { kindBytes, kindText, a, b } = both(text);
      expect([kindBytes, a], text).toEqual([kindText, b]);
    }
  });
});
