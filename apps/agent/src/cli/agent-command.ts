import { Command, Option } from 'commander';
import { z } from 'zod';
import { AgentId, DEFAULT_API_URL, RunId } from '@kneeboard/contracts';
import { runAgent } from '../fleet/run-agent.ts';
import { EXIT } from './exit-codes.ts';
import { parsePositiveInt } from './parse-flags.ts';
import { tokenOption } from './token-option.ts';

interface AgentFlags {
  api: string;
  join: string;
  token?: string;
  agentId?: string;
  engine: 'auto' | 'node' | 'native';
  threads?: number;
  spoolDir?: string;
  json?: boolean;
}

/** Tests only: pretend this host's clock is off by this many ms (see AgentOptions.clockSkewMs). */
const TestSkew = z.coerce.number().finite().default(0);

export function agentCommand(): Command {
  return new Command('agent')
    .description('join a run driven by several agents (started by `kneeboard sweep … --agents N`) and drive this host’s share of each step')
    .requiredOption('--join <run>', 'the run to join (its id, printed by the coordinator)')
    .option('--api <url>', 'Kneeboard API (the same process the coordinator uses)', DEFAULT_API_URL)
    .addOption(tokenOption())
    .option('--agent-id <id>', 'this agent in the stored events (default <hostname>-<pid>)')
    .addOption(new Option('--engine <engine>', 'load engine: native, node, or auto').choices(['auto', 'node', 'native']).default('auto'))
    .addOption(new Option('--threads <n>', 'native engine: worker threads (default: the cores this process may use)').argParser(parsePositiveInt))
    .option('--spool-dir <dir>', 'where undelivered events wait on disk (default: in memory only)')
    .option('--json', 'print what this agent did as JSON on stdout')
    .addHelpText(
      'after',
      `
The target, the request, the levels and the durations come from the coordinator's plan. This agent
measures its clock against the API's, waits for each step's barrier and drives its share.

Example (coordinator first, then one of these on each load host):
  kneeboard sweep --target http://10.0.0.5:8080/ -c 30,60,120 -d 10s --service shop --release v2 --agents 3
  kneeboard agent --api http://10.0.0.2:4000 --join <run id>`,
    )
    .action(agent);
}

async function agent(flags: AgentFlags): Promise<void> {
  const run = RunId.safeParse(flags.join);
  if (!run.success) return usage('--join: must be a run id (a UUID)');
  if (flags.agentId !== undefined && !AgentId.safeParse(flags.agentId).success) return usage('--agent-id: 1–128 printable characters');
  const skew = TestSkew.safeParse(process.env.KNEEBOARD_TEST_CLOCK_SKEW_MS);
  if (!skew.success) return usage('KNEEBOARD_TEST_CLOCK_SKEW_MS: must be a number of ms');
  const out = flags.json ? process.stderr : process.stdout;
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  try {
    const result = await runAgent({
      api: flags.api,
      runId: run.data,
      token: flags.token,
      agentId: flags.agentId,
      engine: flags.engine,
      threads: flags.threads,
      spoolDir: flags.spoolDir ?? null,
      clockSkewMs: skew.data,
      signal: stop.signal,
      say: (line) => out.write(`${line}\n`),
      warn: (line) => process.stderr.write(`warning: ${line}\n`),
    });
    out.write(`done: ${result.recorded} requests recorded, ${result.uploaded} delivered\n`);
    if (flags.json) {
      const steps = result.parts.map((p) => ({
        index: p.index,
        level: p.level,
        load: p.load,
        late_ms: p.lateMs,
        ahead_ms: p.aheadMs,
        requests: p.summary.requests,
        qps: p.summary.qps,
        p50_ms: p.summary.p50_ms,
        health: p.summary.health,
        // A plan with a request mix: this agent's share of the step by name.
        ...(p.summary.by_name ? { by_name: p.summary.by_name.map((n) => ({ name: n.name, requests: n.requests, errors: n.errors, p50_ms: n.p50_ms, compute_p50_ms: n.compute_p50_ms })) } : {}),
      }));
      process.stdout.write(`${JSON.stringify({ agent_id: result.agentId, clock_offset_ms: result.clock.offsetMs, clock_rtt_ms: result.clock.rttMs, recorded: result.recorded, uploaded: result.uploaded, steps })}\n`);
    }
    process.exitCode = result.uploaded < result.recorded ? EXIT.failed : EXIT.ok;
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = EXIT.failed;
  }
  // Keep-alive sockets to the API must not hold a finished agent open.
  process.exit(process.exitCode);
}

function usage(message: string): void {
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = EXIT.usage;
}
