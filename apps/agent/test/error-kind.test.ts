import { describe, expect, it } from 'vitest';
import { errorKindOf, frameErrorKind } from '../src/load/error-kind.ts';

describe('errorKindOf / frameErrorKind: how both engines name an error', () => {
  it('is null for a success by the contracts rule, and names the status otherwise', () => {
    expect(errorKindOf(200)).toBeNull();
    expect(errorKindOf(399)).toBeNull();
    expect(errorKindOf(400)).toBe('HTTP 400');
    expect(errorKindOf(503)).toBe('HTTP 503');
    expect(errorKindOf(0)).toBe('HTTP 0');
  });

  it('prefers the transport failure when there was no answer', () => {
    expect(errorKindOf(0, 'ECONNRESET')).toBe('ECONNRESET');
  });

  it('reads a native frame: kind 0 is an answer, kind k the transport error kinds[k-1]', () => {
    const kinds = ['ECONNREFUSED', 'timeout'];
    expect(frameErrorKind(0, kinds, 204)).toBeNull();
    expect(frameErrorKind(0, kinds, 500)).toBe('HTTP 500');
    expect(frameErrorKind(2, kinds, 0)).toBe('timeout');
    expect(frameErrorKind(9, kinds, 0)).toBe('socket error');
  });
});
