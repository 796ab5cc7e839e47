import { describe, expect, it } from 'vitest';
import { openFileLimit } from '../src/load/fd-limit.ts';
import { SweepConfig } from '../src/sweep/config.ts';
import { checkOpenFiles } from '../src/sweep/preflight.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
`;

const cfg = (over: object) =>
  SweepConfig.parse({ target: 'http://127.0.0.1:1/', levels: [1], durationMs: 1_000, run: { service: 's', release: 'r' }, ...over });

describe('open-file limit', () => {
  it('reads the soft limit from /proc/self/limits, and this process has one', () => {
    expect(openFileLimit(() => LIMITS)).toBe(1024);
    expect(openFileLimit(() => LIMITS.replace('1024 ', 'unlimited '))).toBe(Infinity);
    expect(openFileLimit()).toBeGreaterThan(0);
  });

  it('refuses a closed loop that would need more connections than the limit allows, with the fix', () => {
    expect(() => checkOpenFiles(cfg({ levels: [10, 2_000] }), () => {}, 1024)).toThrow(
      /concurrency 2000 needs 2064 open files but the limit \(ulimit -n\) is 1024: raise it first \(e\.g\. `ulimit -n 65535`/,
    );
    expect(checkOpenFiles(cfg({ levels: [10, 900] }), () => {}, 1024)).toBe(10_000);
    // A connection cap below the concurrency needs only the cap.
    expect(() => checkOpenFiles(cfg({ levels: [2_000], maxConnections: 500 }), () => {}, 1024)).not.toThrow();
  });

  it('lowers the open loop’s connection bound to the limit, with a warning', () => {
    const warnings: string[] = [];
    expect(checkOpenFiles(cfg({ loadModel: 'open', levels: [100] }), (m) => warnings.push(m), 1024)).toBe(960);
    expect(warnings[0]).toMatch(/--max-connections 10000 is above what the open-file limit \(ulimit -n 1024\) allows: using 960/);
  });
});
