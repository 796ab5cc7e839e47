import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { HTTP_TOKEN } from '@kneeboard/agent-sdk';
import { loadRequestMix, type RequestMix } from '../mix/request-mix.ts';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `500ms`, `10s`, `1.5s`, `2m`, `1h` → milliseconds. A bare `0` is allowed (no warm-up). */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (v === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(v);
  if (!m) throw new InvalidArgumentError(`"${value}" is not a duration: use a number and a unit, e.g. 500ms, 10s, 2m.`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** `1,2,4,8,16` → [1, 2, 4, 8, 16]; range and repeat checks are left to the sweep's schema. */
export function parseLevels(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) {
    throw new InvalidArgumentError(`"${value}" is not a list of levels: use whole numbers separated by commas, e.g. 1,2,4,8,16.`);
  }
  return parts.map(Number);
}

/** `100,200,450.5` → numbers; for rates and the values of a --param, which need not be whole. */
export function parseNumbers(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+(?:\.\d+)?$/.test(p))) {
    throw new InvalidArgumentError(`"${value}" is not a list of numbers: use numbers separated by commas, e.g. 100,200,400.`);
  }
  return parts.map(Number);
}

/** A whole number ≥ 1. */
export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`"${value}" is not a whole number ≥ 1.`);
  return Number(value);
}

/** `db` or `app,total` → metric names in priority order. */
export function parseMetricNames(value: string): string[] {
  const names = value.split(',').map((p) => p.trim());
  if (names.some((n) => !HTTP_TOKEN.test(n))) throw new InvalidArgumentError(`"${value}" is not a list of Server-Timing metric names, e.g. db or app,total.`);
  return names;
}

/** Repeatable `--tag key=value` into a record. */
export function collectTag(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`"${value}" is not a tag: use key=value, e.g. --tag region=eu.`);
  return { ...previous, [value.slice(0, eq).trim()]: value.slice(eq + 1) };
}

/** Repeatable curl-style `-H 'Name: value'` into a record (names lower-cased, as HTTP treats them). */
export function collectHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const colon = value.indexOf(':');
  const name = colon > 0 ? value.slice(0, colon).trim().toLowerCase() : '';
  if (!HTTP_TOKEN.test(name)) {
    throw new InvalidArgumentError(`"${value}" is not a header: use 'Name: value', e.g. -H 'content-type: application/json'.`);
  }
  return { ...previous, [name]: value.slice(colon + 1).trim() };
}

/** The request body: the text itself, or with a leading @ (as in curl) the contents of a file. */
export function parseBody(value: string): string | Buffer {
  if (!value.startsWith('@')) return value;
  return readOrExplain(value.slice(1), 'body file');
}

export interface RequestFile {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * `--request-file req.json`: `{"method": "POST", "path": "/search?q=1", "headers": {...}, "body": ...}`
 * (`url` is accepted for `path`). A body that is not a string is sent as JSON, with a JSON
 * content-type unless the file names one.
 */
export function parseRequestFile(file: string): RequestFile {
  let json: unknown;
  try {
    json = JSON.parse(readOrExplain(file, 'request file').toString('utf8'));
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw err;
    throw new InvalidArgumentError(`the request file ${file} is not JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new InvalidArgumentError(`the request file ${file} must hold a JSON object`);
  const o = json as Record<string, unknown>;
  const bad = (what: string) => new InvalidArgumentError(`the request file ${file}: ${what}`);
  const out: RequestFile = {};
  if (o.method !== undefined) {
    if (typeof o.method !== 'string' || !HTTP_TOKEN.test(o.method)) throw bad('"method" must be an HTTP method such as POST');
    out.method = o.method;
  }
  const path = o.path ?? o.url;
  if (path !== undefined) {
    if (typeof path !== 'string' || !path.startsWith('/')) throw bad('"path" must be a path starting with /, e.g. /search?q=1');
    out.path = path;
  }
  if (o.headers !== undefined) {
    if (typeof o.headers !== 'object' || o.headers === null || Array.isArray(o.headers)) throw bad('"headers" must be an object of name: value');
    out.headers = {};
    for (const [k, v] of Object.entries(o.headers)) {
      if (!HTTP_TOKEN.test(k) || typeof v !== 'string') throw bad(`header "${k}" must be a token name with a string value`);
      out.headers[k.toLowerCase()] = v;
    }
  }
  if (o.body !== undefined && o.body !== null) {
    out.body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    if (typeof o.body !== 'string' && out.headers?.['content-type'] === undefined) out.headers = { ...out.headers, 'content-type': 'application/json' };
  }
  return out;
}

function readOrExplain(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new InvalidArgumentError(`cannot read the ${what} ${path}: ${(err as Error).message}`);
  }
}

/** `--requests mix.json|file.har`: read and checked now, so a bad file is a usage error naming the entry. */
export function parseRequestMix(file: string): RequestMix {
  try {
    return loadRequestMix(file);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace(/^--requests: /, ''));
  }
}
