/**
 * Launch the built web app (`next start`) the way production runs it, pointed at an API by
 * KNEEBOARD_API_URL, and wait until it answers. Needs `next build` first (see ensureNextBuild).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** apps/web */
export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NEXT_BIN = path.join(WEB_DIR, 'node_modules', 'next', 'dist', 'bin', 'next');

export interface NextApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  pid: number;
  /** Everything the server printed so far (for failure messages). */
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves when the process has exited. */
  close(): Promise<void>;
}

export interface StartNextAppOptions {
  /** The API the app proxies to and reads from: KNEEBOARD_API_URL. */
  apiUrl: string;
  /** Default: a free port. */
  port?: number;
  /** Default: apps/web. */
  dir?: string;
  /** Give up (and kill the server) after this long. Default 60 s. */
  timeoutMs?: number;
  env?: Record<string, string>;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startNextApp(options: StartNextAppOptions): Promise<NextApp> {
  const dir = options.dir ?? WEB_DIR;
  if (!existsSync(path.join(dir, '.next', 'BUILD_ID'))) {
    throw new Error(`no production build in ${dir}/.next: run \`next build\` (pnpm --filter @kneeboard/web build) first`);
  }
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...options.env, KNEEBOARD_API_URL: options.apiUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const pid = child.pid ?? -1;
  // If the test process ends without calling close(), do not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));

  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited(child);
    clearTimeout(timer);
  };

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${out}`);
    try {
      const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return { url, port, pid, output: () => out, close };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  await close();
  throw new Error(`next start did not answer on ${url} within ${options.timeoutMs ?? 60_000} ms:\n${out}`);
}
