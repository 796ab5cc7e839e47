import { describe, expect, it } from 'vitest';
import { isSuccessStatus, SUCCESS_STATUS } from '../src/index.ts';

describe('isSuccessStatus', () => {
  it.each([
    [0, false], // no answer: a transport error
    [1, true],
    [200, true],
    [304, true],
    [399, true],
    [400, false],
    [404, false],
    [503, false],
    [599, false],
    [999, false],
  ])('status %i is a success: %s', (status, expected) => {
    expect(isSuccessStatus(status)).toBe(expected);
  });

  it('is the range 1–399, the bounds the SQL is built from', () => {
    expect(SUCCESS_STATUS).toEqual({ min: 1, max: 399 });
  });
});
