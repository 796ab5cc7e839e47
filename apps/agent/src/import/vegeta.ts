import { parseIsoMs } from './iso-time.ts';
import { fromText, type ByteLineParser, type LineKind, type LineParser, type Parsed, type ToolSpec } from './records.ts';
import { NameFromBytes, requestName } from './request-name.ts';
import { clearServerTiming, serverTimingInHeaderBlock, setServerTiming } from './server-timing.ts';
import { scanVegetaJson, type VegetaTextPlaces } from './vegeta-json-bytes.ts';

/**
 * vegeta's results as `vegeta encode` writes them: JSON lines (the default) or CSV, detected per
 * line. Each is one request: `timestamp` is when it was sent, `latency` is in nanoseconds, `code`
 * 0 when it failed without a status. Kneeboard stores completion times: sent + latency. vegeta
 * sends at a fixed rate, so the level (the rate) is not in the file: `--level`. vegeta keeps each
 * response's headers (JSON: `headers`, name → values; CSV: the last field, the header block in
 * base64): a Server-Timing header there gives the request its compute and queue time. A
 * request's name is its method and URL (`GET http://…/cart`), as vegeta's targets name it.
 */
export function vegetaParser(): LineParser {
  return (line: string, out: Parsed): LineKind => {
    if (line.length === 0) return bad(out, 'empty line');
    return line.charCodeAt(0) === 123 /* { */ ? fromJson(line, out) : fromCsv(line, out);
  };
}

const NS_PER_MS = 1e6;

/**
 * The importer's reader: a JSON line's three fields straight from its bytes (parsing 1.2M lines
 * a second where JSON.parse of the line's text did 0.83M, bench/import.bench.ts), anything it
 * does not recognise through the text parser above, which also names what is wrong with a bad line.
 */
export function vegetaByteParser(): ByteLineParser {
  const text = fromText(vegetaParser());
  const methods = new NameFromBytes();
  const urls = new NameFromBytes();
  const at: VegetaTextPlaces = { methodFrom: -1, methodTo: -1, urlFrom: -1, urlTo: -1 };
  return (buf, start, end, out) => {
    if (buf[start] === 123 /* { */) {
      const f = scanVegetaJson(buf, start, end, at);
      if (f !== null) {
        const method = at.methodFrom === -1 ? '' : methods.read(buf, at.methodFrom, at.methodTo);
        const url = at.urlFrom === -1 ? '' : urls.read(buf, at.urlFrom, at.urlTo);
        return fill(out, f.sentMs, f.latencyNs / NS_PER_MS, f.code, f.serverTiming, nameOf(method, url));
      }
    }
    return text(buf, start, end, out);
  };
}

/** The last few (method, url) pairs' names: a test repeats a few targets over and over. */
const recentNames = new Map<string, string>();

/** `GET http://…/cart`: what names a vegeta target. */
function nameOf(method: string, url: string): string {
  if (url === '') return requestName(method);
  const key = `${method} ${url}`;
  let name = recentNames.get(key);
  if (name === undefined) {
    name = requestName(key);
    if (recentNames.size >= 64) recentNames.clear();
    recentNames.set(key, name);
  }
  return name;
}

function fromJson(line: string, out: Parsed): LineKind {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    // The reason is the report's; the parser's message adds nothing a person needs.
    return bad(out, 'not valid JSON (cut off?)');
  }
  if (typeof r !== 'object' || r === null) return bad(out, 'not a vegeta result');
  const { timestamp, latency, code, headers, method, url } = r as Record<string, unknown>;
  if (typeof timestamp !== 'string' || typeof latency !== 'number' || typeof code !== 'number') return bad(out, 'no timestamp, latency and code');
  const sent = parseIsoMs(timestamp);
  if (Number.isNaN(sent)) return bad(out, 'unreadable timestamp');
  return fill(out, sent, latency / NS_PER_MS, code, serverTimingOf(headers), nameOf(typeof method === 'string' ? method : '', typeof url === 'string' ? url : ''));
}

/** Go's http.Header as JSON: the first Server-Timing entry (names compared without case) holding strings. */
function serverTimingOf(headers: unknown): string[] | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  for (const [name, values] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'server-timing') continue;
    if (Array.isArray(values) && values.every((v) => typeof v === 'string')) return values as string[];
    return undefined;
  }
  return undefined;
}

/** The CSV's last field: the response's header block in base64 (never quoted, never holding a comma). */
function csvServerTiming(line: string): string[] | undefined {
  const last = line.slice(line.lastIndexOf(',') + 1);
  if (last.length === 0 || !/^[A-Za-z0-9+/]+=*\r?$/.test(last)) return undefined;
  return serverTimingInHeaderBlock(Buffer.from(last, 'base64').toString('latin1'));
}

/** `timestamp(unix ns),code,latency(ns),bytes_out,bytes_in,error,body,attack,seq,method,url,headers`: only the first three are needed, and they are never quoted. */
function fromCsv(line: string, out: Parsed): LineKind {
  const c1 = line.indexOf(',');
  const c2 = line.indexOf(',', c1 + 1);
  const c3 = line.indexOf(',', c2 + 1);
  if (c1 === -1 || c2 === -1 || c3 === -1) return bad(out, 'not a vegeta CSV line (fewer than 3 fields)');
  const ns = line.slice(0, c1);
  // Unix nanoseconds exceed 2^53: split off the sub-millisecond digits before converting.
  if (!/^\d{13,}$/.test(ns)) return bad(out, 'timestamp is not unix nanoseconds');
  const sent = Number(ns.slice(0, -6)) + Number(ns.slice(-6)) / NS_PER_MS;
  const code = Number(line.slice(c1 + 1, c2));
  const latencyNs = Number(line.slice(c2 + 1, c3));
  if (!Number.isInteger(code) || !Number.isFinite(latencyNs) || c3 === c2 + 1) return bad(out, 'code or latency is not a number');
  return fill(out, sent, latencyNs / NS_PER_MS, code, csvServerTiming(line), csvName(line));
}

/** `…,method,url,headers`: the two fields before the last (a URL with a comma is quoted: its name is then left out). */
function csvName(line: string): string {
  const h = line.lastIndexOf(',');
  const u = line.lastIndexOf(',', h - 1);
  const m = line.lastIndexOf(',', u - 1);
  if (m === -1) return '';
  const method = line.slice(m + 1, u);
  const url = line.slice(u + 1, h);
  if (url.startsWith('"') || !/^[A-Z]+$/.test(method)) return '';
  // The line was decoded as Latin-1; a URL's non-ASCII bytes are UTF-8.
  return nameOf(method, Buffer.from(url, 'latin1').toString('utf8'));
}

function fill(out: Parsed, sentMs: number, latencyMs: number, status: number, serverTiming: string[] | undefined, name: string): LineKind {
  out.name = name;
  out.tsMs = sentMs + latencyMs;
  out.latencyMs = latencyMs;
  out.status = status;
  out.level = Number.NaN;
  if (serverTiming === undefined) clearServerTiming(out);
  else setServerTiming(out, serverTiming);
  return 'event';
}

function bad(out: Parsed, reason: string): 'bad' {
  out.reason = reason;
  return 'bad';
}

export const vegetaTool: ToolSpec = {
  name: 'vegeta',
  identity: 'vegeta',
  loadModel: 'open',
  parameter: 'rate',
  levelsFrom: null,
  format: { kind: 'lines', open: vegetaByteParser },
};
