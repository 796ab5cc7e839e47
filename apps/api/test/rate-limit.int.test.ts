import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

// A shared server (tokens required, public reads): the rate limit applies. On the open loopback default it does not.
const ADMIN = 'rate-limit-admin-token-0123456789abcdef';
let rated: TestApi;
let open: TestApi;
beforeAll(async () => {
  rated = await startTestApi({ mode: 'server', access: { mode: 'required', read: 'public', adminToken: ADMIN }, limits: { rateMax: 5, rateWindowMs: 60_000 } });
  open = await startTestApi({ limits: { rateMax: 5, rateWindowMs: 60_000 } });
}, 120_000);
afterAll(async () => Promise.all([rated?.close(), open?.close()]));

describe('rate limit', () => {
  it('answers 429 with Retry-After and the limit named past KNEEBOARD_RATE_LIMIT_PER_MIN; health probes are not counted', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${rated.url}/healthz`)).status).toBe(200);
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${rated.url}/api/v1/runs`);
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
      else await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = ApiError.parse(await refused?.json());
    expect(body.statusCode).toBe(429);
    expect(body.message).toContain('at most 5 requests per 60 s');
    expect(body.message).toContain('KNEEBOARD_RATE_LIMIT_PER_MIN');
    expect((await fetch(`${rated.url}/readyz`)).status).not.toBe(429);
  });

  it('counts each token on its own: another client keeps its budget', async () => {
    // The address is over its budget (the test above); writes with a token count against the token.
    const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${rated.url}/api/v1/runs`, { method: 'POST', headers, body: JSON.stringify({ service: 's', release: 'r' }) })).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });

  it('is off on the open loopback default (one user, their own agents)', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 20; i++) statuses.add((await fetch(`${open.url}/api/v1/runs`)).status);
    expect([...statuses]).toEqual([200]);
  });
});
