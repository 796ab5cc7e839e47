import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../src/server.ts', import.meta.url));
// One process, node with tsx's loader: the `tsx` launcher would fork a child, and a SIGKILL to the
// launcher would leave the real server running.
const TSX_LOADER = import.meta.resolve('tsx');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process has written to stdout and stderr so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the real API entry point (`src/server.ts`) as its own process, as users start it, and waits
 * until /healthz answers. Pass `port` to restart on the same address. Used by tests and benchmarks.
 */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 30_000, port?: number, nodeArgs: string[] = []): Promise<ServerProcess> {
  port ??= await freePort();
  // nodeArgs: e.g. --cpu-prof for a benchmark's profile (Node refuses those in NODE_OPTIONS).
  const child = spawn(process.execPath, [...nodeArgs, '--import', TSX_LOADER, SERVER], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API exited with ${child.exitCode}:\n${output}`);
    try {
      // Bounded: a process that accepted the connection but is too busy to answer must not hold the wait past its deadline.
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) })).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`API did not become healthy in ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
