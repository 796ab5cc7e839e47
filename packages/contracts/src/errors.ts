import { z } from 'zod';

export const FieldIssue = z.object({ field: z.string(), message: z.string() });
export type FieldIssue = z.infer<typeof FieldIssue>;

/** Every 4xx/5xx from the API has this body. `field` names the first offending field, `issues` all of them. */
export const ApiError = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
  field: z.string().optional(),
  issues: z.array(FieldIssue).optional(),
});
export type ApiError = z.infer<typeof ApiError>;

/** `['latency_ms', 3]` → `latency_ms[3]`, so an error names the exact entry of a columnar batch. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
