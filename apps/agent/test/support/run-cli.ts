import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/kneeboard.mjs', import.meta.url));

export interface CliRun {
  child: ChildProcess;
  /** Resolves when the process exits; it is killed after `timeoutMs` so a hung CLI fails the test. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stdout: () => string;
  stderr: () => string;
}

/**
 * Runs the real launcher (bin/kneeboard.mjs) in a child process, as a user would; `stdin`, when
 * given, is piped in (as `k6 … | kneeboard import k6 -` does). `entry` runs another build of the CLI.
 */
export function runCli(args: string[], timeoutMs = 20_000, env: Record<string, string> = {}, stdin?: Readable, entry = BIN): CliRun {
  const child = spawn(process.execPath, [entry, ...args], { stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  if (stdin) stdin.pipe(child.stdin!);
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
