import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { isSuccessStatus } from '@kneeboard/contracts';
import type { ServerTimingParser } from '@kneeboard/agent-sdk';
import type { TargetRequest } from '../load/target-client.ts';
import { sendOnce } from './preflight.ts';
import { SweepError } from './sweep-error.ts';

export interface BeforeLevelOptions {
  command: string;
  level: number;
  parameter: string;
  /** Polled until it answers below 400. */
  readyUrl: URL;
  readyRequest: TargetRequest;
  timeoutMs: number;
  parseTiming: ServerTimingParser;
  signal: AbortSignal;
}

const POLL_MS = 100;

/**
 * Runs the level's shell command (`{level}` replaced), waits for it to exit 0, then polls the ready
 * URL until it answers — a restarted target takes a moment to listen. The command's output goes
 * to the agent's stderr, so stdout stays clean for --json. Everything is bounded by timeoutMs.
 */
export async function runBeforeLevel(o: BeforeLevelOptions): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  const command = o.command.replaceAll('{level}', String(o.level));
  const label = `--before-level for ${o.parameter} ${o.level}`;
  const code = await runShell(command, o.timeoutMs, o.signal);
  if (code === 'timeout') throw new SweepError('before-level', `${label} did not finish within ${o.timeoutMs / 1000} s: ${command}`);
  if (code !== 0) throw new SweepError('before-level', `${label} exited with ${code}: ${command}`);

  let last = 'no answer yet';
  while (!o.signal.aborted) {
    const c = await sendOnce(o.readyUrl.origin, { ...o.readyRequest, path: o.readyUrl.pathname + o.readyUrl.search, timeoutMs: Math.min(o.readyRequest.timeoutMs, 5_000) }, o.parseTiming);
    if (isSuccessStatus(c.status)) return;
    last = c.errorKind ?? `HTTP ${c.status}`;
    if (Date.now() + POLL_MS > deadline) {
      throw new SweepError('before-level', `the target was not ready ${o.timeoutMs / 1000} s after ${label}: ${o.readyUrl.href} last gave ${last}`);
    }
    await sleep(POLL_MS);
  }
}

function runShell(command: string, timeoutMs: number, signal: AbortSignal): Promise<number | string | 'timeout'> {
  return new Promise((resolve, reject) => {
    // Output to our stderr: a server the command leaves running in the background may write for ever.
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', process.stderr, process.stderr] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('timeout');
    }, timeoutMs);
    const onAbort = () => child.kill('SIGTERM');
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('error', reject);
    // 'exit', not 'close': a background process it started may keep inherited descriptors open.
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(code ?? `signal ${sig}`);
    });
  });
}
