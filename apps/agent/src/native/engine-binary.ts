import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The agent package's folder: the nearest one above this module holding engine/Cargo.toml (this
 * module runs from src/native/ or, bundled, from dist/). */
function agentRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'engine', 'Cargo.toml')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Where `cargo build --release` in apps/agent/engine puts the native engine. */
export const DEFAULT_ENGINE_BINARY = join(agentRoot(), 'engine/target/release/kneeboard-engine');

export type EngineChoice = 'auto' | 'node' | 'native';
/** The sweep's `--http`: HTTP/2 (`2`, `auto`) exists on the native engine only. */
export type HttpChoice = '1.1' | '2' | 'auto';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Which engine a sweep runs on. `auto`: the native engine when it is built (http:// and https://,
 * HTTP/1.1 either way), else the Node engine. Asking for `native` where it cannot run is an error
 * with what to do, never a silent fallback. A binary older than the CLI (protocol 1, no TLS) is
 * refused at its first frame with "rebuild it".
 */
export function resolveEngine(choice: EngineChoice, target: URL, binary: string, http: HttpChoice = '1.1'): { engine: 'node' | 'native'; note?: string } | { error: string } {
  const h2 = http === '2' ? '--http2' : '--http auto';
  if (choice === 'node') return http === '1.1' ? { engine: 'node' } : { error: `${h2}: needs the native engine; the Node engine speaks HTTP/1.1 only` };
  const built = isExecutable(binary);
  if (http !== '1.1' && !built) return { error: `${h2}: needs the native engine, which is not built (${binary}): run \`cargo build --release\` in apps/agent/engine` };
  if (choice === 'native') {
    if (!built) return { error: `the native engine is not built (${binary}): run \`cargo build --release\` in apps/agent/engine, or use --engine node` };
    return { engine: 'native' };
  }
  if (built) return { engine: 'native' };
  return { engine: 'node', note: target.protocol === 'https:' ? 'https target: the Node engine runs it (the native engine is not built)' : undefined };
}
