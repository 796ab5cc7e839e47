import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postJson, startTestApi, type TestApi } from './helpers.ts';
import { parseAnswer, rawRequest } from './raw-http.ts';

type Op = { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } };
type Spec = { paths: Record<string, Record<string, Op>> };

/** Issue 15.6: the OpenAPI document says what the API does (schemathesis checks it at large: test/schemathesis). */
describe('the OpenAPI document and the API agree', () => {
  let api: TestApi;
  let spec: Spec;
  beforeAll(async () => {
    api = await startTestApi();
    spec = (await (await fetch(`${api.url}/openapi.json`)).json()) as Spec;
  });
  afterAll(async () => api?.close());

  it('answers a known path with a method it lacks 405 and an Allow header, an unknown path 404', async () => {
    const put = await fetch(`${api.url}/api/v1/runs`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(((await put.json()) as { field: string }).field).toBe('method');
    // A more specific path than the route that would take the method: not a PATCH of a run named "….png".
    const png = await fetch(`${api.url}/api/v1/runs/00000000-0000-4000-8000-000000000000.png`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(png.status).toBe(405);
    expect(png.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${api.url}/api/v1/nothing-here`, { method: 'PUT' })).status).toBe(404);
    expect((await fetch(`${api.url}/healthz`, { method: 'DELETE' })).status).toBe(405);
  });

  it('documents the shared errors on every operation, and no operation lacks a success', () => {
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const codes = Object.keys(op.responses);
        expect(codes, `${method} ${path}`).toContain('503');
        expect(codes.some((c) => c.startsWith('2')), `${method} ${path}`).toBe(true);
        if (path.startsWith('/api/')) expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403', '429']));
        if (path.includes('{')) expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '404']));
        if (method === 'post' || method === 'patch') expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '408', '413', '415']));
        expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['421', '431']));
      }
    }
  });

  it('documents what the hardening added where it is answered: 421 for a name that is not loopback, 400 for env_admin without confirm', async () => {
    // A raw request: fetch() will not set Host.
    const { answer } = rawRequest(api.url, 'GET /api/v1/runs', { host: 'evil.example:6400', connection: 'close' });
    expect(parseAnswer(await answer).status).toBe(421);
    expect(Object.keys(spec.paths['/api/v1/runs']?.get?.responses ?? {})).toContain('421');
    const revoke = spec.paths['/api/v1/tokens/{id}']?.delete as (Op & { parameters?: { name: string; in: string }[] }) | undefined;
    expect(Object.keys(revoke?.responses ?? {})).toContain('400');
    expect(revoke?.parameters?.some((p) => p.in === 'query' && p.name === 'confirm')).toBe(true);
  });

  it("gives GET /runs/{id} both shapes it answers: the run's detail, or an ingest token's status (no labels, no note)", () => {
    const schema = spec.paths['/api/v1/runs/{id}']?.get?.responses['200']?.content?.['application/json']?.schema as { anyOf?: { properties?: { run?: { properties?: Record<string, unknown> } } }[] };
    expect(schema.anyOf).toHaveLength(2);
    const [detail, status] = schema.anyOf!;
    expect(Object.keys(detail?.properties ?? {})).toEqual(expect.arrayContaining(['run', 'curve']));
    expect(Object.keys(status?.properties ?? {})).toEqual(['run']);
    expect(Object.keys(status?.properties?.run?.properties ?? {})).toEqual(expect.arrayContaining(['id', 'service', 'status']));
    expect(Object.keys(status?.properties?.run?.properties ?? {})).not.toContain('labels');
    expect(Object.keys(detail?.properties?.run?.properties ?? {})).toContain('labels');
  });

  it('gives non-JSON successes their media type, an event stream included, and a 204 no body', () => {
    const media = (path: string, method = 'get') => Object.keys(spec.paths[path]?.[method]?.responses['200']?.content ?? {});
    expect(media('/api/v1/runs/{id}/live')).toEqual(['text/event-stream']);
    expect(media('/api/v1/runs/{id}/curve.svg')).toEqual(['image/svg+xml']);
    expect(media('/api/v1/runs/{id}/curve.csv')).toEqual(['text/csv']);
    expect(media('/api/v1/compare.md')).toEqual(['text/markdown']);
    expect(media('/api/v1/runs/{id}.png')).toEqual(['image/png']);
    expect(spec.paths['/api/v1/runs/{id}']?.delete?.responses['204']?.content).toBeUndefined();
  });

  it('states the text rules as patterns, and the API refuses what the pattern refuses', async () => {
    const body = spec.paths['/api/v1/runs']?.post?.requestBody?.content['application/json']?.schema as { properties: Record<string, { pattern?: string }> };
    const pattern = new RegExp(body.properties.service?.pattern ?? 'missing', 'u');
    expect(pattern.test('checkout')).toBe(true);
    expect(pattern.test('   ')).toBe(false); // trimmed, then at least one character
    for (const bad of ['a\u0000b', 'x\u202ey', 'tab\there']) {
      expect(pattern.test(bad)).toBe(false);
      expect((await postJson(`${api.url}/api/v1/runs`, { service: bad, release: 'v1' })).status).toBe(400);
    }
  });

  it('ends the live stream of a finished run after its snapshot', async () => {
    const runId = await createRun(api.url);
    expect((await postJson(`${api.url}/api/v1/runs/${runId}/finish`, {})).status).toBe(200);
    const res = await fetch(`${api.url}/api/v1/runs/${runId}/live`, { signal: AbortSignal.timeout(20_000) });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text(); // resolves only because the server closes the stream
    expect(text).toContain('event: snapshot');
    expect(text).toContain('event: end');
  });

  it('answers 400, not 500, for a level beyond any run and a token expiry beyond any clock', async () => {
    const runId = await createRun(api.url);
    expect((await fetch(`${api.url}/api/v1/runs/${runId}/levels/1.57e308`)).status).toBe(400);
    expect((await postJson(`${api.url}/api/v1/tokens`, { name: 'x', scope: 'write', expires_at: 1.7976931348623157e308 })).status).toBe(400);
  });
});
