import { execFile } from 'node:child_process';
import { accessSync, constants, copyFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';

export const run = promisify(execFile);

/**
 * A load tool's binary, where scripts/lib/load-tools.sh (or the user) put it, or null. Tests run
 * the real tool when it is here and read the samples it wrote earlier (test/fixtures/) otherwise.
 */
export function findTool(name: string): string | null {
  // KNEEBOARD_NO_LOAD_TOOLS=1 exercises the samples path on a machine that has the tools.
  if (process.env.KNEEBOARD_NO_LOAD_TOOLS === '1') return null;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), join(homedir(), 'go', 'bin'), join(homedir(), '.cargo', 'bin')];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not in this directory
    }
  }
  return null;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Copies a committed sample into `dest` (gunzipping `.gz`), as if the tool had just written it. */
export function fixture(name: string, dest: string): string {
  const src = join(FIXTURES, name);
  if (name.endsWith('.gz')) writeFileSync(dest, gunzipSync(readFileSync(src)));
  else copyFileSync(src, dest);
  return dest;
}

/** Where a sample lives in the repository, to refresh it from a real run. */
export const fixturePath = (name: string): string => join(FIXTURES, name);
