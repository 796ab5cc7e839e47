import { RunAgents, RunDetail } from '@kneeboard/contracts';
import { runCli, type CliRun } from './run-cli.ts';

/** What `kneeboard agent --json` prints at the end. */
export interface AgentJson {
  agent_id: string;
  clock_offset_ms: number;
  clock_rtt_ms: number;
  recorded: number;
  uploaded: number;
  steps: Array<{
    index: number;
    level: number;
    load: number;
    late_ms: number;
    ahead_ms: number;
    requests: number;
    qps: number;
    p50_ms: number | null;
    /** A plan with a request mix: the agent's share by name. */
    by_name?: Array<{ name: string; requests: number; errors: number; p50_ms: number | null; compute_p50_ms: number | null }>;
  }>;
}

export interface Fleet {
  coordinator: CliRun;
  runId: string;
}

/** `kneeboard sweep … --agents n --json`, resolved once it has printed the run to join. */
export async function startCoordinator(api: string, target: string, n: number, levels: string, extra: string[] = [], timeoutMs = 240_000): Promise<Fleet> {
  const coordinator = runCli(
    ['sweep', '--target', target, '-c', levels, '-d', '1500ms', '--warmup', '300ms', '--service', 'fleet', '--release', 'v1', '--api', api, '--agents', String(n), '--json', ...extra],
    timeoutMs,
  );
  // Generous: on a box shared with other jobs, loading the CLI alone has taken over 15 s.
  for (let i = 0; i < 1_800; i++) {
    const m = /--join ([0-9a-f-]{36})/.exec(coordinator.stderr());
    if (m) return { coordinator, runId: m[1]! };
    if (coordinator.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the coordinator printed no run to join:\n${coordinator.stderr()}`);
}

/** `kneeboard agent --join RUN --json`, by default on the Node engine (the same on every box: no native build needed). */
export function startAgent(api: string, runId: string, id: string, env: Record<string, string> = {}, timeoutMs = 240_000, engine: 'node' | 'native' = 'node'): CliRun {
  return runCli(['agent', '--api', api, '--join', runId, '--agent-id', id, '--engine', engine, '--json'], timeoutMs, env);
}

export function agentJson(stdout: string): AgentJson {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as AgentJson;
}

export async function runAgents(api: string, runId: string): Promise<RunAgents> {
  return RunAgents.parse(await (await fetch(`${api}/api/v1/runs/${runId}/agents`)).json());
}

export async function runDetail(api: string, runId: string): Promise<RunDetail> {
  return RunDetail.parse(await (await fetch(`${api}/api/v1/runs/${runId}?exact=1`)).json());
}

/** Largest minus smallest start of each step's agents, ms (API clock, as they reported them). */
export function barrierSpreads(agents: RunAgents): Map<number, number> {
  const starts = new Map<number, number[]>();
  for (const s of agents.steps) if (s.started_at !== null) starts.set(s.index, [...(starts.get(s.index) ?? []), s.started_at]);
  return new Map([...starts].map(([i, xs]) => [i, Math.max(...xs) - Math.min(...xs)]));
}

/** Waits until `probe` holds, polling; false when it never did within `timeoutMs`. */
export async function until(probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
