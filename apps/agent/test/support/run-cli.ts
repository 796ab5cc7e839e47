import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/kneeboard.mjs', import.meta.url));

export interface CliRun {
  child: ChildProcess;
  /** Resolves when the process exits; it is killed after `timeoutMs` so a hung CLI fails the test. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stdout: () => string;
  stderr: () => string;
}

/** Runs the real launcher (bin/kneeboard.mjs) in a child process, as a user would. */
export function runCli(args: string[], timeoutMs = 20_000, env: Record<string, string> = {}): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}
