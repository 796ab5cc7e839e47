import { z } from 'zod';
import { NONBLANK_LINE, plainLine } from './text.ts';

/**
 * A request mix (`kneeboard sweep --requests mix.json`): a weighted list of requests, each with a
 * name that labels its events. The agent validates the file with these schemas and reports every
 * problem by entry and field (`describeMixIssues`).
 */

/** At most this many requests in a mix: the default cap on distinct names per run. */
export const MAX_MIX_REQUESTS = 200;

/** A request's name: a label as the run's are (one visible line, ≤ 200 characters). */
export const MixRequestName = z.string().max(200, 'must be at most 200 characters').trim().min(1, 'must not be empty').superRefine(plainLine).meta(NONBLANK_LINE);

// RFC 9110's token: method and header names.
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A header value with a line break would split the request (and undici refuses it too).
export const HeaderValue = z.string().refine((v) => !/[\r\n\0]/.test(v), 'a header value must not contain a line break or NUL');

/** A request's path and query on the target (the engines write it on one line). */
export const MixPath = z.string().startsWith('/', 'must start with /').refine((p) => !/[\s\0]/.test(p), 'must not contain white space (percent-encode it)');
export const MixWeight = z.number().positive('must be more than 0').max(1e9, 'must be at most 1e9');

export const MixEntry = z
  .object({
    name: MixRequestName,
    /** Default GET, or POST when there is a body. */
    method: z.string().regex(HTTP_TOKEN, 'must be an HTTP method such as GET or POST').optional(),
    /** An absolute http(s) URL (its origin must be the sweep's target) … */
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
    /** … or a path and query on the target, e.g. `/search?q=1`. */
    path: MixPath.optional(),
    headers: z.record(z.string().regex(HTTP_TOKEN, 'header names must be HTTP tokens'), HeaderValue).optional(),
    /** Sent as it is; any other JSON value is sent as JSON (with a JSON content-type unless one is given). */
    body: z.json().optional(),
    /** Relative share of the requests (default 1): weights 5, 3, 2 send half, 30% and 20%. */
    weight: MixWeight.default(1),
  })
  .strict()
  .superRefine((e, ctx) => {
    if ((e.url === undefined) === (e.path === undefined)) ctx.addIssue({ code: 'custom', path: ['path'], message: 'give one of url or path' });
  });
export type MixEntry = z.output<typeof MixEntry>;

/** The file: a list of entries, or `{ "requests": [...] }`. */
export const RequestMixFile = z.union([
  z.array(MixEntry).min(1, 'needs at least one request').max(MAX_MIX_REQUESTS, `at most ${MAX_MIX_REQUESTS} requests`),
  z
    .object({ requests: z.array(MixEntry).min(1, 'needs at least one request').max(MAX_MIX_REQUESTS, `at most ${MAX_MIX_REQUESTS} requests`) })
    .strict(),
]);

/**
 * One line per problem, naming the entry (1-based, with its name when it has one) and the field:
 * `entry 2 ("cart"): weight: must be more than 0`.
 */
export function describeMixIssues(error: z.ZodError, json: unknown): string[] {
  const list = Array.isArray(json) ? json : typeof json === 'object' && json !== null && Array.isArray((json as { requests?: unknown }).requests) ? (json as { requests: unknown[] }).requests : null;
  if (list === null) return ['must be a list of requests, or { "requests": [...] }'];
  // A union's error holds each branch's issues; report the branch the file was written for.
  const issues = error.issues.flatMap((i) => (i.code === 'invalid_union' ? pickBranch(i.errors, Array.isArray(json)) : [i]));
  const lines = issues.map((issue) => {
    const path = issue.path.map(String);
    if (path[0] === 'requests') path.shift();
    const at = Number(path[0]);
    if (path.length === 0 || !Number.isInteger(at)) return `${path.length > 0 ? `${path.join('.')}: ` : ''}${issue.message}`;
    const name = (list[at] as { name?: unknown } | undefined)?.name;
    const label = `entry ${at + 1}${typeof name === 'string' && name.length <= 200 ? ` (${JSON.stringify(name)})` : ''}`;
    const field = path.slice(1).join('.');
    return `${label}: ${field ? `${field}: ` : ''}${issue.message}`;
  });
  return [...new Set(lines)];
}

function pickBranch(branches: z.core.$ZodIssue[][], isArray: boolean): z.core.$ZodIssue[] {
  const branch = branches[isArray ? 0 : 1] ?? branches[0] ?? [];
  return branch.length > 0 ? branch : [{ code: 'custom', path: [], message: 'must be a list of requests, or { "requests": [...] }', input: undefined }];
}
