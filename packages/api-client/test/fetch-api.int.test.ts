import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiHttpError, ApiNetworkError, ApiShapeError, fetchApi, fetchApiText } from '../src/index.ts';

const Greeting = z.object({ hello: z.string() });

// A real HTTP server on loopback, answering by path the way the API (or a proxy in front of it) does.
let server: Server;
let base: string;
const seen: { method: string; contentType: string | undefined; auth: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', contentType: req.headers['content-type'], auth: req.headers.authorization, body });
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      if (req.url === '/ok') return json(200, { hello: 'world' });
      if (req.url === '/echo') return json(200, { hello: body });
      if (req.url === '/wrong-shape') return json(200, { hello: 42 });
      if (req.url === '/bad-field') return json(400, { statusCode: 400, error: 'Bad Request', message: 'level[3]: too small', field: 'level[3]' });
      if (req.url === '/busy') return json(429, { statusCode: 429, error: 'Too Many Requests', message: 'slow down' }, { 'retry-after': '3' });
      if (req.url === '/html-502') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end('<html><body>Bad Gateway</body></html>');
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('fetchApi against a real HTTP server', () => {
  it('returns the body parsed with the schema on success, and sends JSON and the caller headers', async () => {
    expect(await fetchApi(`${base}/ok`, Greeting)).toEqual({ hello: 'world' });
    const echoed = await fetchApi(`${base}/echo`, Greeting, { method: 'POST', json: { a: 1 }, headers: { authorization: 'Bearer t' } });
    expect(echoed).toEqual({ hello: '{"a":1}' });
    expect(seen.at(-1)).toEqual({ method: 'POST', contentType: 'application/json', auth: 'Bearer t', body: '{"a":1}' });
  });

  it('turns a 4xx ApiError into an ApiHttpError with the status, the message and the field named', async () => {
    const err = await fetchApi(`${base}/bad-field`, Greeting).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiHttpError);
    const http = err as ApiHttpError;
    expect(http.status).toBe(400);
    expect(http.body?.field).toBe('level[3]');
    expect(http.message).toBe(`GET ${base}/bad-field → 400: level[3]: too small (field level[3])`);
  });

  it('reads Retry-After on an error answer', async () => {
    const err = (await fetchApiText(`${base}/busy`).catch((e: unknown) => e)) as ApiHttpError;
    expect(err).toBeInstanceOf(ApiHttpError);
    expect(err.retryAfterMs).toBe(3_000);
  });

  it('turns a non-JSON 5xx (a proxy page) into an ApiHttpError with the status and no body', async () => {
    const err = (await fetchApi(`${base}/html-502`, Greeting).catch((e: unknown) => e)) as ApiHttpError;
    expect(err).toBeInstanceOf(ApiHttpError);
    expect(err.status).toBe(502);
    expect(err.body).toBeUndefined();
    expect(err.message).toBe(`GET ${base}/html-502 → 502`);
  });

  it('refuses a 2xx body of the wrong shape with an ApiShapeError, not a cast', async () => {
    const err = await fetchApi(`${base}/wrong-shape`, Greeting).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiShapeError);
    expect((err as Error).message).toMatch(/^GET .*\/wrong-shape: unexpected response shape/);
  });

  it('turns no answer at all into an ApiNetworkError naming the cause', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await fetchApi(`http://127.0.0.1:${port}/ok`, Greeting).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiNetworkError);
    expect((err as Error).message).toBe(`GET http://127.0.0.1:${port}/ok: no answer (ECONNREFUSED)`);
  });
});
