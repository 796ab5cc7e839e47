import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { HTTP_TOKEN } from '../recorder/http-token.ts';

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
  const path = value.slice(1);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new InvalidArgumentError(`cannot read the body file ${path}: ${(err as Error).message}`);
  }
}
