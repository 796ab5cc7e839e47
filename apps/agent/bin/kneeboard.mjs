#!/usr/bin/env node
// The agent ships TypeScript source. It runs the bundle scripts/bundle-cli.mjs builds when that is
// up to date (start.sh and test.sh build it: less memory, faster start), else the source through
// tsx's ESM hooks. KNEEBOARD_CLI_SOURCE=1 forces the source.
import { bundleIsFresh } from './pick-entry.mjs';

const bundle = new URL('../dist/kneeboard.mjs', import.meta.url);
const inputs = new URL('../dist/kneeboard.inputs.json', import.meta.url);
if (process.env.KNEEBOARD_CLI_SOURCE !== '1' && bundleIsFresh(bundle, inputs)) {
  await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
