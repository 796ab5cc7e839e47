import { endpointPath, successSchemaOf, type BodyOf, type EndpointSpec, type ParamsOf, type QueryOf, type QueryValue, type SuccessOf } from '@kneeboard/contracts';
import { z } from 'zod';
import { authorization } from './authorization.ts';
import { fetchApi, fetchApiText, type ApiRequest } from './fetch-api.ts';

/** What a call fills in: the path's `:params`, the query, the JSON body — each typed by the endpoint's schemas. */
export interface CallInput<E extends EndpointSpec> {
  params?: ParamsOf<E>;
  query?: QueryOf<E> | URLSearchParams;
  body?: BodyOf<E>;
}

export interface CallOptions {
  /** The API's origin (`http://127.0.0.1:4000`); none for a same-origin call from the browser (the web app's /api proxy). */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer` when set. */
  token?: string | null | undefined;
  headers?: Record<string, string>;
  /** The caller's own fetch options: a timeout signal, Next.js's `cache: 'no-store'`… */
  init?: ApiRequest['init'];
}

/** The full URL of a call: base + the table's path with params and query. */
export function endpointUrl<E extends EndpointSpec>(ep: E, input: CallInput<E> = {}, baseUrl = ''): string {
  return baseUrl.replace(/\/+$/, '') + endpointPath(ep, (input.params ?? {}) as ParamsOf<E>, input.query as Readonly<Record<string, QueryValue>> | URLSearchParams | undefined);
}

function request<E extends EndpointSpec>(ep: E, input: CallInput<E>, options: CallOptions): ApiRequest {
  return {
    method: ep.method,
    ...(input.body === undefined ? {} : { json: input.body }),
    headers: { ...authorization(options.token), ...options.headers },
    ...(options.init ? { init: options.init } : {}),
  };
}

/**
 * One call to an endpoint of the table (contracts' ENDPOINTS): its method and path, the body sent
 * as JSON, the answer parsed with the endpoint's success schema (an empty 204 is `undefined`).
 * Errors as fetchApi's: ApiHttpError, ApiNetworkError, ApiShapeError.
 */
export function callApi<E extends EndpointSpec>(ep: E, input: CallInput<E> = {}, options: CallOptions = {}): Promise<SuccessOf<E>> {
  const schema = (successSchemaOf(ep) ?? z.unknown()) as z.ZodType<SuccessOf<E>>;
  return fetchApi(endpointUrl(ep, input, options.baseUrl), schema, request(ep, input, options));
}

/** The same, for an endpoint whose answer is not JSON (Markdown, CSV, SVG): its text. */
export function callApiText<E extends EndpointSpec>(ep: E, input: CallInput<E> = {}, options: CallOptions = {}): Promise<string> {
  return fetchApiText(endpointUrl(ep, input, options.baseUrl), request(ep, input, options));
}
