import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.resolve('@kneeboard/demo-target')));

export interface TargetProcess {
  url: string;
  child: ChildProcess;
  stats(): Promise<{ inFlight: number; maxInFlight: number; queued: number; served: number; stalls: number }>;
  stop(): Promise<void>;
}

/** The demo target's CLI in its own process, as a user starts it: the agent then has its event loop to itself. */
export function demoTargetArgs(args: string[]): string[] {
  return ['--import', 'tsx', MAIN, ...args];
}

export async function startTargetProcess(args: string[]): Promise<TargetProcess> {
  const child = spawn(process.execPath, demoTargetArgs(['--port', '0', ...args]), { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo target did not start:\n${output}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.once('exit', (code) => reject(new Error(`demo target exited with ${code}:\n${output}`)));
  });
  return {
    url,
    child,
    stats: async () => (await (await fetch(`${url}/stats`)).json()) as Awaited<ReturnType<TargetProcess['stats']>>,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
