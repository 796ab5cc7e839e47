import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { ServiceHistoryResponse } from '../history.ts';
import { CreateLinkBody, Link, LinkCode } from '../links.ts';
import { ListServicesResponse, ServiceReleasesResponse } from '../services.ts';
import { LINE, plainLine } from '../text.ts';
import { API_PREFIX, endpoint } from './endpoint.ts';

export const ServiceParams = z.object({ service: z.string().min(1).superRefine(plainLine).meta(LINE) });

/** Services and their releases, and short links to views. */
export const catalogEndpoints = {
  listServices: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/services`,
    scope: 'read',
    summary: 'Services with runs, most recently run first',
    tags: ['services'],
    responses: { 200: ListServicesResponse },
  }),
  serviceReleases: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/services/:service/releases`,
    scope: 'read',
    summary: "A service's runs grouped by release, releases in the order they were first run",
    tags: ['services'],
    params: ServiceParams,
    responses: { 200: ServiceReleasesResponse },
  }),
  serviceHistory: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/services/:service/history`,
    scope: 'read',
    summary:
      "A service's comparable series: one point per release and feature (peak QPS, knee, p99 at the base knee, capacity under the series' SLO) with run-to-run intervals, and their change points",
    tags: ['services'],
    params: ServiceParams,
    responses: { 200: ServiceHistoryResponse, 400: ApiError, 404: ApiError },
  }),
  createLink: endpoint({
    method: 'POST',
    path: `${API_PREFIX}/links`,
    scope: 'write',
    summary: "Store a short link to a view's full URL path",
    tags: ['links'],
    body: CreateLinkBody,
    responses: { 201: Link, 400: ApiError },
  }),
  getLink: endpoint({
    method: 'GET',
    path: `${API_PREFIX}/links/:code`,
    scope: 'read',
    summary: 'Resolve a short link',
    tags: ['links'],
    params: z.object({ code: LinkCode }),
    responses: { 200: Link, 404: ApiError },
  }),
} as const;
