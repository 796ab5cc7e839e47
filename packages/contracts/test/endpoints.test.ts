import { describe, expect, it } from 'vitest';
import { ENDPOINT_LIST, ENDPOINTS, endpointPath, queryString, successSchemaOf } from '../src/index.ts';

describe('the endpoint table', () => {
  it('declares each method and path once, every path param with a schema', () => {
    const keys = ENDPOINT_LIST.map((e) => `${e.method} ${e.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of ENDPOINT_LIST) {
      const names = [...e.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
      const shape = (e.params as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
      expect(Object.keys(shape).sort(), `${e.method} ${e.path}`).toEqual(names.sort());
    }
  });

  it('gives every share view a read, and a service rule only to writes into a run or a body naming the service', () => {
    for (const e of ENDPOINT_LIST) {
      if (e.share) expect(e.method, e.path).toBe('GET');
      if (e.service === 'run') expect(e.path, e.path).toMatch(/^\/api\/v1\/runs\/:id/);
      if (e.service === 'body') expect(e.body, e.path).toBeDefined();
    }
  });

  it('builds paths with each param percent-encoded, and the query with repeated keys for lists', () => {
    expect(endpointPath(ENDPOINTS.getRun, { id: 'a/b c' })).toBe('/api/v1/runs/a%2Fb%20c');
    expect(endpointPath(ENDPOINTS.runLevel, { id: 'r', level: 0.5 })).toBe('/api/v1/runs/r/levels/0.5');
    expect(endpointPath(ENDPOINTS.agentNext, { id: 'r', agent: 'host-1' })).toBe('/api/v1/runs/r/agents/host-1/next');
    expect(endpointPath(ENDPOINTS.compare, {}, { base: 'x', head: ['y', 'z'], min_effect: undefined })).toBe('/api/v1/compare?base=x&head=y&head=z');
    expect(endpointPath(ENDPOINTS.listRuns, {}, {})).toBe('/api/v1/runs');
    expect(queryString(new URLSearchParams([['a', '1 2']]))).toBe('?a=1+2');
    expect(() => endpointPath(ENDPOINTS.getRun, {} as { id: string })).toThrow(/no value for :id/);
  });

  it('knows the success schema a client parses: the first 2xx with a body', () => {
    expect(successSchemaOf(ENDPOINTS.createRun)).toBe(ENDPOINTS.createRun.responses[201]);
    expect(successSchemaOf(ENDPOINTS.getRun)).toBe(ENDPOINTS.getRun.responses[200]);
    expect(successSchemaOf(ENDPOINTS.deleteRun)).toBeUndefined();
    expect(successSchemaOf(ENDPOINTS.runCurveSvg)).toBeUndefined();
  });
});
