import type { ChildProcess } from 'node:child_process';
import { startListeningProcess } from './listening-process.ts';
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
  const { url, child, stop } = await startListeningProcess('demo target', demoTargetArgs(['--port', '0', ...args]));
  return { url, child, stats: async () => (await (await fetch(`${url}/stats`)).json()) as Awaited<ReturnType<TargetProcess['stats']>>, stop };
}
