import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@kneeboard/contracts';
import { startTestApi, type TestApi } from './helpers.ts';

let rated: TestApi;
beforeAll(async () => {
  rated = await startTestApi({ limits: { rateMax: 5, rateWindowMs: 60_000 } });
});
afterAll(async () => rated.close());

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
});
