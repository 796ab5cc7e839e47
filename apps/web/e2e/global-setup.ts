import { ensureNextBuild } from './build.ts';

/** Vitest global setup for the browser tests: one fresh production build before any spec starts. */
export default function setup(): void {
  ensureNextBuild();
}
