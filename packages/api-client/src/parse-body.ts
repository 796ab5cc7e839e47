import type { z } from 'zod';
import { ApiShapeError } from './api-errors.ts';

/** A 2xx body as JSON; an empty body is `undefined`. Not JSON is an ApiShapeError naming the request. */
export function parseApiJson(method: string, url: string, text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch (err) {
    throw new ApiShapeError(method, url, `not JSON (${(err as Error).message})`);
  }
}

/** A JSON value checked with the contracts' schema: the typed value, or an ApiShapeError naming the request — never a cast. */
export function checkApiShape<T>(method: string, url: string, json: unknown, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiShapeError(method, url, parsed.error.message);
  return parsed.data;
}

/** Both: a 2xx body's text to the schema's type. */
export function parseApiBody<T>(method: string, url: string, text: string, schema: z.ZodType<T>): T {
  return checkApiShape(method, url, parseApiJson(method, url, text), schema);
}
