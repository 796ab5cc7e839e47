import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where `cargo build --release` in apps/agent/engine puts the native engine. */
export const DEFAULT_ENGINE_BINARY = fileURLToPath(new URL('../../engine/target/release/kneeboard-engine', import.meta.url));

export type EngineChoice = 'auto' | 'node' | 'native';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Which engine a sweep runs on. `auto`: the native engine when it is built and the target is
 * plain http (it speaks no TLS), else the Node engine. Asking for `native` where it cannot run is
 * an error with what to do, never a silent fallback.
 */
export function resolveEngine(choice: EngineChoice, target: URL, binary: string): { engine: 'node' | 'native'; note?: string } | { error: string } {
  if (choice === 'node') return { engine: 'node' };
  const built = isExecutable(binary);
  const https = target.protocol === 'https:';
  if (choice === 'native') {
    if (https) return { error: 'the native engine speaks plain http only: use --engine node (or auto) for an https target' };
    if (!built) return { error: `the native engine is not built (${binary}): run \`cargo build --release\` in apps/agent/engine, or use --engine node` };
    return { engine: 'native' };
  }
  if (built && !https) return { engine: 'native' };
  return { engine: 'node', note: https ? 'https target: the Node engine runs it (the native engine speaks plain http only)' : undefined };
}
