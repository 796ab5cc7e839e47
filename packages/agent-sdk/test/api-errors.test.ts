import { describe, expect, it } from 'vitest';
import { ApiNetworkError } from '@kneeboard/api-client';
import { ApiHttpError, describeCause, parseApiErrorBody, parseRetryAfter } from '../src/api-errors.ts';
import { isRetriable, withRetry } from '../src/retry.ts';

const netError = (code: string) => Object.assign(new Error(code), { code });

describe('retry rules', () => {
  it('retries 408/429/502/503/504/507 and network errors only', () => {
    for (const status of [408, 429, 502, 503, 504, 507]) expect(isRetriable(new ApiHttpError('POST', '/x', status, undefined, undefined))).toBe(true);
    for (const status of [400, 404, 409, 413, 500]) expect(isRetriable(new ApiHttpError('POST', '/x', status, undefined, undefined))).toBe(false);
    expect(isRetriable(netError('ECONNRESET'))).toBe(true);
    expect(isRetriable(new ApiNetworkError('GET', '/x', netError('ECONNREFUSED')))).toBe(true);
    expect(isRetriable(new SyntaxError('bad json'))).toBe(false);
  });

  it('repeats the same attempt until it succeeds, and stops at a final error', async () => {
    const policy = { initialDelayMs: 1, maxDelayMs: 2, giveUpAfterMs: 1_000 };
    let calls = 0;
    const notices: number[] = [];
    const value = await withRetry(
      async () => {
        calls += 1;
        if (calls < 3) throw netError('ECONNREFUSED');
        return 'ok';
      },
      policy,
      { onRetry: (n) => notices.push(n.attempt) },
    );
    expect(value).toBe('ok');
    expect(notices).toEqual([1, 2]);

    let finalCalls = 0;
    const final = withRetry(async () => {
      finalCalls += 1;
      throw new ApiHttpError('POST', '/x', 400, undefined, undefined);
    }, policy);
    await expect(final).rejects.toThrow(/400/);
    expect(finalCalls).toBe(1);
  });

  it('gives up after giveUpAfterMs with the last error', async () => {
    const started = Date.now();
    await expect(withRetry(async () => Promise.reject(netError('ECONNREFUSED')), { initialDelayMs: 5, maxDelayMs: 10, giveUpAfterMs: 60 })).rejects.toThrow(
      'ECONNREFUSED',
    );
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('gives up after one attempt when the failure streak is already older than the budget', async () => {
    let calls = 0;
    const attempt = async () => {
      calls += 1;
      throw netError('ECONNREFUSED');
    };
    const policy = { initialDelayMs: 5, maxDelayMs: 10, giveUpAfterMs: 1_000 };
    await expect(withRetry(attempt, policy, { failingSince: () => Date.now() - 2_000 })).rejects.toThrow('ECONNREFUSED');
    expect(calls).toBe(1);
  });

  it('honours Retry-After over its own backoff', async () => {
    let calls = 0;
    const started = Date.now();
    await withRetry(
      async () => {
        calls += 1;
        if (calls === 1) throw new ApiHttpError('POST', '/x', 429, undefined, 120);
      },
      { initialDelayMs: 0, maxDelayMs: 0, giveUpAfterMs: 5_000 },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('API error helpers', () => {
  it('parse Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5_000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('read the ApiError body, and tolerate a non-JSON one', () => {
    expect(parseApiErrorBody('{"statusCode":400,"error":"Bad Request","message":"level[3]: too small","field":"level[3]"}')).toMatchObject({
      field: 'level[3]',
    });
    expect(parseApiErrorBody('<html>bad gateway</html>')).toBeUndefined();
    const err = new ApiHttpError('POST', 'http://api/x', 400, { statusCode: 400, error: 'Bad Request', message: 'nope', field: 'service' }, undefined);
    expect(err.message).toBe('POST http://api/x → 400: nope (field service)');
    expect(new ApiHttpError('GET', 'http://api/y', 502, undefined, undefined).message).toBe('GET http://api/y → 502');
  });

  it('describe causes briefly', () => {
    expect(describeCause(netError('ECONNREFUSED'))).toBe('ECONNREFUSED');
    expect(describeCause(netError('UND_ERR_HEADERS_TIMEOUT'))).toBe('no response in time');
    expect(describeCause(new TypeError('fetch failed', { cause: netError('ENOTFOUND') }))).toBe('ENOTFOUND');
  });
});
