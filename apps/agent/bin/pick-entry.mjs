// Which file `kneeboard` runs: the bundle (dist/kneeboard.mjs, built by scripts/bundle-cli.mjs)
// when it is newer than every file it was built from, else the TypeScript source through tsx. A
// developer who edits a source file gets the source at once, never a stale bundle.
import { readFileSync, statSync } from 'node:fs';

/** True when `bundle` exists and no file listed in `inputsFile` changed after it was written. */
export function bundleIsFresh(bundle, inputsFile) {
  try {
    const builtAt = statSync(bundle).mtimeMs;
    const inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
    return inputs.every((input) => statSync(input).mtimeMs <= builtAt);
  } catch {
    // No bundle, no input list, or an input gone: the source is the truth.
    return false;
  }
}
