import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as TargetClient from '../../src/load/target-client.ts';
import { DEFAULT_ENGINE_BINARY } from '../../src/native/engine-binary.ts';

/**
 * The deliberate way to starve the agent, so tests (and the threads bench) can see the
 * generator-limited verdict: CPU time burnt per response on the thread that handles it. It lives
 * here, around the engines, never in the agent's options or its hot loop.
 */
export function burnCpu(ms: number): void {
  if (ms <= 0) return;
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

/** How long the Node engine's wrapped target client burns per response; 0 leaves it as it is. */
export const nodeBurn = { ms: 0 };

/**
 * The Node engine's target client with every response first burning `nodeBurn.ms` of the main
 * thread, before the loop sees it. For `vi.mock` of src/load/target-client.ts:
 *
 *   vi.mock(import('../src/load/target-client.ts'), async (original) =>
 *     (await import('./support/cpu-burn.ts')).burningTargetClient(await original()));
 */
export function burningTargetClient(original: typeof TargetClient): typeof TargetClient {
  return {
    ...original,
    fire: (dispatcher, req, parseTiming, hooks) =>
      original.fire(dispatcher, req, parseTiming, {
        onSent: (at) => hooks.onSent(at),
        onDone: (c) => {
          burnCpu(nodeBurn.ms);
          hooks.onDone(c);
        },
      }),
  };
}

/**
 * The native engine, wrapped: a script that runs the built binary with its `--cpu-burn-ms` test
 * flag added, so each engine thread burns `ms` per response. Pass it as `engineBinary`
 * (`--engine-binary` on the CLI).
 */
export function cpuBurningEngine(ms: number, binary = DEFAULT_ENGINE_BINARY): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kb-burning-engine-')), 'kneeboard-engine');
  const quoted = `'${binary.replaceAll("'", `'\\''`)}'`;
  writeFileSync(path, `#!/bin/sh\nexec ${quoted} "$@" --cpu-burn-ms ${ms}\n`);
  chmodSync(path, 0o755);
  return path;
}
