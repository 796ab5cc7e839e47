#!/usr/bin/env node
// The agent ships TypeScript source (no build step): load tsx's ESM hooks, then run the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
