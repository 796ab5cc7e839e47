import type { z } from 'zod';

/** Where the versioned API lives; every path in the endpoint table under it is built from this. */
export const API_PREFIX = '/api/v1';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint once tokens are required (open mode checks nothing), least to most:
 * - `public`: never checked — health, the OpenAPI document.
 * - `ingest`: an agent's conversation — ingest, write and admin tokens. As a GET, it is also one of
 *   the two reads an ingest token makes (its run's status, its plan's progress), and public when
 *   reads are (KNEEBOARD_READ=public).
 * - `read`: a read — write and admin tokens (a share token: see `share`), anyone when reads are public.
 * - `write`: a change made by a person — write and admin tokens.
 * - `share-create`: creating a token — admin tokens; write tokens not limited to a service, for share tokens only.
 * - `admin`: token management — admin tokens.
 */
export type Scope = 'public' | 'ingest' | 'read' | 'write' | 'share-create' | 'admin';

export interface EndpointSpec {
  method: HttpMethod;
  /** The full path, Fastify style: `/api/v1/runs/:id`. */
  path: string;
  scope: Scope;
  /** What a share token may read here: a run it names (`:id`), or a comparison of runs it names (`base`, `head`). */
  share?: 'run' | 'compare';
  /** Whose service a token limited to one service must own to write here: the run `:id`'s, the body's `service`, or the path's `:service`. */
  service?: 'run' | 'body' | 'path';
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Status → body schema: the success, and the errors the handler itself answers (the shared plugins' are added to the document by the API). */
  responses?: Partial<Record<number, z.ZodType>>;
  /** The success's media type when it is not JSON. */
  produces?: 'text/event-stream' | 'text/csv' | 'text/markdown' | 'image/svg+xml' | 'image/png';
  summary?: string;
  description?: string;
  tags?: readonly string[];
  /** Left out of the OpenAPI document (the document itself). */
  hidden?: boolean;
}

/** One row of the table, its literal types kept so routes and clients are typed from it. */
export function endpoint<const E extends EndpointSpec>(spec: E): E {
  return spec;
}

type Input<S> = S extends z.ZodType ? z.input<S> : Record<string, never>;
/** A row's path params; for any row at all (the wide EndpointSpec), whatever its path names. */
export type ParamsOf<E extends EndpointSpec> = E extends { params: infer P } ? Input<P> : EndpointSpec extends E ? Record<string, string | number> : Record<string, never>;
export type QueryOf<E extends EndpointSpec> = E extends { query: infer Q } ? Input<Q> : Record<string, never>;
export type BodyOf<E extends EndpointSpec> = E extends { body: infer B } ? Input<B> : undefined;

/** The schema of the first 2xx answer (what a client parses), or undefined for a non-JSON or empty one. */
export type SuccessSchemaOf<E extends EndpointSpec> = E extends { responses: infer R }
  ? R extends { 200: infer S extends z.ZodType }
    ? S
    : R extends { 201: infer S extends z.ZodType }
      ? S
      : undefined
  : undefined;
export type SuccessOf<E extends EndpointSpec> = SuccessSchemaOf<E> extends z.ZodType ? z.output<SuccessSchemaOf<E>> : unknown;

export function successSchemaOf<E extends EndpointSpec>(ep: E): SuccessSchemaOf<E> {
  const responses = ep.responses ?? {};
  const code = Object.keys(responses).map(Number).find((c) => c >= 200 && c < 300 && c !== 204);
  return (code === undefined ? undefined : responses[code]) as SuccessSchemaOf<E>;
}

export type QueryValue = string | number | boolean | readonly (string | number)[] | null | undefined;

/** A query string from plain values (arrays repeat the key, undefined and null are left out), `?` first, or ''. */
export function queryString(query: Readonly<Record<string, QueryValue>> | URLSearchParams | undefined): string {
  if (query === undefined) return '';
  const qs = query instanceof URLSearchParams ? query : new URLSearchParams();
  if (!(query instanceof URLSearchParams)) {
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      for (const v of Array.isArray(value) ? value : [value]) qs.append(key, String(v));
    }
  }
  const text = qs.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The path of a call: each `:name` replaced by its value, percent-encoded (`/api/v1/runs/ab%2Fc`),
 * then the query. The one way a client or a link spells an API path.
 */
export function endpointPath<E extends EndpointSpec>(ep: E, params: ParamsOf<E>, query?: Readonly<Record<string, QueryValue>> | URLSearchParams): string {
  const values = params as Record<string, string | number>;
  const path = ep.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${ep.method} ${ep.path}: no value for :${name}`);
    return encodeURIComponent(String(value));
  });
  return path + queryString(query);
}
