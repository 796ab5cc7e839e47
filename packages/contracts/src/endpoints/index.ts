import { catalogEndpoints } from './catalog.ts';
import { compareEndpoints } from './compare.ts';
import { costEmbedEndpoints } from './cost-embeds.ts';
import type { EndpointSpec } from './endpoint.ts';
import { fleetEndpoints } from './fleet.ts';
import { healthEndpoints } from './health.ts';
import { ingestEndpoints } from './ingest.ts';
import { runEndpoints } from './runs.ts';
import { serverMetricEndpoints } from './server-metrics.ts';
import { tokenEndpoints } from './tokens.ts';
import { webhookEndpoints } from './webhooks.ts';

export * from './endpoint.ts';
export { AnalysisQuery, AnalysisWithCapacity, PngScale, RunIdParams } from './runs.ts';
export { EventsQuery } from './ingest.ts';
export { AgentParams, OkBody } from './fleet.ts';
export { CompareMarkdownQuery } from './compare.ts';
export { ServiceParams } from './catalog.ts';
export { Liveness, Readiness } from './health.ts';

/**
 * Every HTTP endpoint of the API, by name: method, path, schemas, the scope it needs. The API
 * registers its routes and access rules from it, the OpenAPI document is generated from those
 * routes, and clients (packages/api-client) call through it — no path is spelled anywhere else.
 */
export const ENDPOINTS = {
  ...healthEndpoints,
  ...runEndpoints,
  ...ingestEndpoints,
  ...compareEndpoints,
  ...catalogEndpoints,
  ...tokenEndpoints,
  ...fleetEndpoints,
  ...serverMetricEndpoints,
  ...costEmbedEndpoints,
  ...webhookEndpoints,
} as const;

export type EndpointName = keyof typeof ENDPOINTS;
export type AnyEndpoint = (typeof ENDPOINTS)[EndpointName];

export const ENDPOINT_LIST: readonly EndpointSpec[] = Object.values(ENDPOINTS);
