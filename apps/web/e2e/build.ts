/**
 * Make sure `.next` is a production build of the current sources: the browser tests must never
 * pass against a stale build. Rebuilds when the build is missing or older than any source file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { WEB_DIR } from './next-app.ts';

const SOURCES = ['src', 'next.config.ts', 'tsconfig.json', 'package.json', '../../packages/contracts/src', '../../packages/chart-prep/src', '../../packages/svg-charts/src'];

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

export function isBuildStale(dir = WEB_DIR): boolean {
  const buildId = path.join(dir, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  return SOURCES.some((s) => newestMtime(path.join(dir, s)) > built);
}

export function ensureNextBuild(dir = WEB_DIR, timeoutMs = 300_000): void {
  if (!isBuildStale(dir)) return;
  console.log('[e2e] building the web app (next build)…');
  const result = spawnSync(process.execPath, [path.join(dir, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: 'inherit',
    timeout: timeoutMs,
  });
  if (result.status !== 0) throw new Error(`next build failed (status ${result.status}, signal ${result.signal})`);
}
