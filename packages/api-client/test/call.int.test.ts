import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '@kneeboard/contracts';
import { ApiShapeError, authorization, callApi, callApiText, endpointUrl } from '../src/index.ts';

// A real HTTP server on loopback that records each request and answers what the test queued for it.
let server: Server;
let base: string;
const seen: { method: string; url: string; auth: string | undefined; body: string }[] = [];
let answer: { status: number; type: string; body: string } = { status: 200, type: 'application/json', body: '{}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
      res.writeHead(answer.status, answer.status === 204 ? {} : { 'content-type': answer.type });
      res.end(answer.status === 204 ? undefined : answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('callApi: a typed call built from the endpoint table', () => {
  it("sends the endpoint's method and path, the JSON body and the Bearer header, and parses its success schema", async () => {
    answer = { status: 201, type: 'application/json', body: JSON.stringify({ id: '3f1c1d8e-6f4b-4b7e-9a51-2f6d1c0b9a77' }) };
    const created = await callApi(ENDPOINTS.createRun, { body: { service: 'shop', release: 'v1', load_model: 'closed' } }, { baseUrl: base, token: 'kb_t' });
    expect(created.id).toBe('3f1c1d8e-6f4b-4b7e-9a51-2f6d1c0b9a77');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/api/v1/runs', auth: 'Bearer kb_t' });
    expect(JSON.parse(seen.at(-1)!.body)).toMatchObject({ service: 'shop', release: 'v1' });
  });

  it('fills path params percent-encoded and the query, sends no header without a token, and answers undefined for a 204', async () => {
    answer = { status: 204, type: '', body: '' };
    expect(await callApi(ENDPOINTS.deleteRun, { params: { id: 'a/b' } }, { baseUrl: base })).toBeUndefined();
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/api/v1/runs/a%2Fb', auth: undefined });
    answer = { status: 200, type: 'text/markdown', body: '# compare' };
    expect(await callApiText(ENDPOINTS.compareMarkdown, { query: { base: 'x', head: ['y', 'z'] } }, { baseUrl: base })).toBe('# compare');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api/v1/compare.md?base=x&head=y&head=z' });
  });

  it('refuses a success that is not the endpoint schema, naming the request', async () => {
    answer = { status: 200, type: 'application/json', body: JSON.stringify({ services: 'nope' }) };
    const err = await callApi(ENDPOINTS.listServices, {}, { baseUrl: base }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiShapeError);
    expect((err as ApiShapeError).message).toContain(`GET ${base.replace(/\/$/, '')}/api/v1/services`);
  });

  it('builds the Bearer header in one place, and URLs without a base for same-origin calls', () => {
    expect(authorization('kb_x')).toEqual({ authorization: 'Bearer kb_x' });
    expect(authorization(undefined)).toEqual({});
    expect(authorization('')).toEqual({});
    expect(endpointUrl(ENDPOINTS.runTimeline, { params: { id: 'r1' } })).toBe('/api/v1/runs/r1/timeline');
  });
});
