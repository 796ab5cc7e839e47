import { parseNumberBytes } from './byte-number.ts';
import { parseIsoBytes } from './iso-time.ts';

/** What a vegeta JSON result holds that the importer reads: the send time (epoch ms), latency (ns) and status code. */
export interface VegetaFields {
  sentMs: number;
  latencyNs: number;
  code: number;
  /** The response's Server-Timing header values (`headers` is Go's http.Header: name → values), when it has one. */
  serverTiming?: string[];
}

/** Where the `method` and `url` strings' contents lie in the line's bytes ([from, to), no quotes); -1 when absent. */
export interface VegetaTextPlaces {
  methodFrom: number;
  methodTo: number;
  urlFrom: number;
  urlTo: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const isOpen = (c: number) => c === 0x7b || c === 0x5b; // { [
const isClose = (c: number) => c === 0x7d || c === 0x5d; // } ]

const key = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const CODE = key('code');
const LATENCY = key('latency');
const TIMESTAMP = key('timestamp');
const HEADERS = key('headers');
const SERVER_TIMING = key('server-timing');
const METHOD = key('method');
const URL_KEY = key('url');

/** Header names are case-insensitive: Go writes them canonical (`Server-Timing`), a hand-made file may not. */
function isKeyIgnoringCase(b: Uint8Array, start: number, end: number, lower: Uint8Array): boolean {
  if (end - start !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) if ((b[start + i]! | 0x20) !== lower[i]) return false;
  return true;
}

function isKey(b: Uint8Array, start: number, end: number, k: Uint8Array): boolean {
  if (end - start !== k.length) return false;
  for (let i = 0; i < k.length; i++) if (b[start + i] !== k[i]) return false;
  return true;
}

/** End of the JSON string whose opening quote is at `at` (the index of its closing quote), or -1. */
function stringEnd(b: Uint8Array, at: number, end: number): number {
  for (let j = at + 1; j < end; j++) {
    const c = b[j];
    if (c === QUOTE) return j;
    if (c === BACKSLASH) j += 1;
  }
  return -1;
}

/** End (exclusive) of a bare value (number, true, false, null) starting at `at`. */
function bareEnd(b: Uint8Array, at: number, end: number): number {
  let j = at;
  while (j < end && b[j] !== 0x2c && !isClose(b[j]!) && b[j] !== 0x20) j++;
  return j;
}

/**
 * `timestamp`, `latency` and `code` of one `vegeta encode` JSON line, read from its bytes: a scan
 * that steps over strings (escapes included) and counts nesting, so only the object's own keys
 * count — never a header or a URL that happens to hold the same words — to the line's end, where
 * the object must have closed (a line cut off mid-write is not taken for whole). Null when the
 * line is not what it looks for in the form it expects — the caller then reads it with
 * JSON.parse, which decides whether it is valid at all. The `headers` object's Server-Timing entry
 * is found on the same pass (its place noted, its strings decoded only when the line is whole),
 * and so are the places of `method` and `url` (into `text`), for the request's name.
 */
export function scanVegetaJson(b: Uint8Array, start: number, end: number, text: VegetaTextPlaces = { methodFrom: -1, methodTo: -1, urlFrom: -1, urlTo: -1 }): VegetaFields | null {
  let depth = 0;
  let sentMs = Number.NaN;
  let latencyNs = Number.NaN;
  let code = Number.NaN;
  let found = 0;
  let closedAt = -1;
  // The `headers` object is open (depth 2 inside it); where the Server-Timing array starts and ends.
  let inHeaders = false;
  let timingFrom = -1;
  let timingTo = -1;
  text.methodFrom = text.methodTo = text.urlFrom = text.urlTo = -1;
  for (let i = start; i < end; ) {
    const c = b[i]!;
    if (c === QUOTE) {
      const close = stringEnd(b, i, end);
      if (close === -1) return null;
      if (inHeaders && depth === 2 && b[close + 1] === COLON && b[close + 2] === 0x5b && isKeyIgnoringCase(b, i + 1, close, SERVER_TIMING)) {
        timingFrom = close + 2;
        i = close + 1;
        continue;
      }
      if (depth === 1 && b[close + 1] === COLON) {
        if (b[close + 2] === 0x7b && isKey(b, i + 1, close, HEADERS)) inHeaders = true;
        const v = close + 2;
        if (isKey(b, i + 1, close, TIMESTAMP)) {
          if (b[v] !== QUOTE) return null;
          const vClose = stringEnd(b, v, end);
          if (vClose === -1) return null;
          sentMs = parseIsoBytes(b, v + 1, vClose);
          found += 1;
          i = vClose + 1;
          continue;
        }
        const isMethod = b[v] === QUOTE && isKey(b, i + 1, close, METHOD);
        if (isMethod || (b[v] === QUOTE && isKey(b, i + 1, close, URL_KEY))) {
          const vClose = stringEnd(b, v, end);
          if (vClose === -1) return null;
          if (isMethod) [text.methodFrom, text.methodTo] = [v + 1, vClose];
          else [text.urlFrom, text.urlTo] = [v + 1, vClose];
          i = vClose + 1;
          continue;
        }
        const isLatency = isKey(b, i + 1, close, LATENCY);
        if (isLatency || isKey(b, i + 1, close, CODE)) {
          const vEnd = bareEnd(b, v, end);
          const n = parseNumberBytes(b, v, vEnd);
          if (isLatency) latencyNs = n;
          else code = n;
          found += 1;
          i = vEnd;
          continue;
        }
      }
      i = close + 1;
      continue;
    }
    if (isOpen(c)) depth += 1;
    else if (isClose(c)) {
      depth -= 1;
      if (depth === 0) closedAt = i;
      else if (depth === 1) inHeaders = false;
      else if (depth === 2 && timingFrom !== -1 && timingTo === -1) timingTo = i + 1;
    }
    i += 1;
  }
  // The object closed, once, with nothing but spaces after it.
  if (closedAt === -1 || depth !== 0) return null;
  for (let i = closedAt + 1; i < end; i++) if (b[i] !== 0x20 && b[i] !== 0x0d) return null;
  if (found !== 3 || Number.isNaN(sentMs) || !Number.isFinite(latencyNs) || !Number.isInteger(code)) return null;
  if (timingTo === -1) return { sentMs, latencyNs, code };
  const serverTiming = headerValues(b, timingFrom, timingTo);
  return serverTiming === null ? null : { sentMs, latencyNs, code, serverTiming };
}

/** The JSON array of strings in [from, to), or null when it is anything else (JSON.parse then judges the line). */
function headerValues(b: Uint8Array, from: number, to: number): string[] | null {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('utf8'));
  } catch {
    return null; // not an array of strings as vegeta writes it: the slow path reads the line
  }
  return Array.isArray(values) && values.every((v) => typeof v === 'string') ? (values as string[]) : null;
}
