import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// What only the web server adds on top of @kneeboard/api-client, against a real HTTP server on
// loopback: the credential header, 404 → null, 401/403 → the app's pages, anything else → ApiUnavailableError.
// Next.js's unauthorized()/forbidden() throw a signal of their own; it must reach Next untouched.
const signals = vi.hoisted(() => ({ unauthorized: new Error('NEXT_UNAUTHORIZED'), forbidden: new Error('NEXT_FORBIDDEN') }));
vi.mock('next/navigation', () => ({
  unauthorized: () => {
    throw signals.unauthorized;
  },
  forbidden: () => {
    throw signals.forbidden;
  },
}));
vi.mock('./server-credentials.ts', () => ({ requestCredential: async () => ({ kind: 'env', token: 'dashboard-token-0123456789abcdef' }) }));

let server: Server;
const authSeen: (string | undefined)[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    authSeen.push(req.headers.authorization);
    res.writeHead(answer.status, { 'content-type': answer.body.startsWith('{') ? 'application/json' : 'text/html' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.KNEEBOARD_API_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const apiError = (statusCode: number, message: string) => JSON.stringify({ statusCode, error: 'x', message });

describe('server-side API reads', () => {
  it('parses a success with the contracts and sends the credential as a bearer token', async () => {
    const { resolveLink } = await import('./api.ts');
    answer = { status: 200, body: JSON.stringify({ code: 'abc123', path: '/compare?base=a&head=b' }) };
    expect(await resolveLink('abc123')).toEqual({ code: 'abc123', path: '/compare?base=a&head=b' });
    expect(authSeen.at(-1)).toBe('Bearer dashboard-token-0123456789abcdef');
  });

  it('reads a 404 as null where the page allows it, and as unavailable where it does not', async () => {
    const { ApiUnavailableError, listServices, resolveLink } = await import('./api.ts');
    answer = { status: 404, body: apiError(404, 'no such link') };
    expect(await resolveLink('abc123')).toBeNull();
    await expect(listServices()).rejects.toBeInstanceOf(ApiUnavailableError);
  });

  it('turns 401 and 403 into the app’s unauthorized and forbidden pages', async () => {
    const { listServices, resolveLink } = await import('./api.ts');
    answer = { status: 401, body: apiError(401, 'a token is required') };
    await expect(listServices()).rejects.toBe(signals.unauthorized);
    answer = { status: 403, body: apiError(403, 'not your run') };
    await expect(listServices()).rejects.toBe(signals.forbidden);
    await expect(resolveLink('abc123')).rejects.toBe(signals.forbidden);
  });

  it('reports a non-JSON 5xx and a wrong shape as ApiUnavailableError naming the API', async () => {
    const { ApiUnavailableError, listServices } = await import('./api.ts');
    answer = { status: 502, body: '<html>Bad Gateway</html>' };
    const err = await listServices().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiUnavailableError);
    expect((err as Error).message).toMatch(/→ 502$/);
    expect((err as InstanceType<typeof ApiUnavailableError>).apiUrl).toBe(process.env.KNEEBOARD_API_URL);
    answer = { status: 200, body: JSON.stringify({ services: 'none' }) };
    await expect(listServices()).rejects.toThrow(/unexpected response shape/);
  });
});
