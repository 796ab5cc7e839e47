import { describe, expect, it } from 'vitest';
import { resolveDemoTargetOptions } from '../src/options.ts';

describe('resolveDemoTargetOptions', () => {
  it('fills the documented defaults', () => {
    expect(resolveDemoTargetOptions({ port: undefined })).toEqual({ workers: 4, serviceMs: 20, jitterMs: 0, port: 4100, host: '127.0.0.1', stallAfterMs: 0, stallMs: 0, cpuMs: 0 });
  });

  it.each([
    [{ workers: 0 }, /workers/],
    [{ workers: 1.5 }, /workers/],
    [{ serviceMs: -1 }, /serviceMs/],
    [{ serviceMs: 10, jitterMs: 11 }, /jitterMs/],
    [{ port: 70_000 }, /port/],
    [{ cpuMs: -1 }, /cpuMs/],
  ])('rejects %o naming the option', (options, message) => {
    expect(() => resolveDemoTargetOptions(options)).toThrow(message);
  });
});
