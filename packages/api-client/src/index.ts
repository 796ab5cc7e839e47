/**
 * @kneeboard/api-client — the one fetch → parse → error core every caller of the Kneeboard API uses
 * (the web server, the web browser, the agent SDK). Browser-safe: contracts + zod, no Node APIs.
 * Callers keep their own specifics (credentials, cookies, retries, caching, their own transport).
 */
export { ApiHttpError, ApiNetworkError, ApiShapeError, apiHttpError, describeStatus, parseApiErrorBody, parseRetryAfter } from './api-errors.ts';
export { checkApiShape, parseApiBody, parseApiJson } from './parse-body.ts';
export { fetchApi, fetchApiText, type ApiRequest } from './fetch-api.ts';
export { authorization, bearer } from './authorization.ts';
export { callApi, callApiText, endpointUrl, type CallInput, type CallOptions } from './call.ts';
