import { formatLevel, formatMs, formatQps, formatSignedClockMs } from '@kneeboard/contracts/figures';
import { coordinateSweep, type CoordinateOptions } from '../fleet/coordinate.ts';
import type { SweepConfig } from '../sweep/config.ts';
import { SweepError } from '../sweep/sweep-error.ts';
import { formatSlo } from '@kneeboard/contracts';
import { searchSummary } from './search-flags.ts';
import { EXIT } from './exit-codes.ts';

/** `kneeboard sweep … --agents N`: the coordinator's side, with a table of the run's curve at the end. */
export async function coordinate(cfg: SweepConfig, plan: Pick<CoordinateOptions, 'agents' | 'heartbeatTimeoutMs' | 'leadMs'>, json: boolean): Promise<void> {
  const out = json ? process.stderr : process.stdout;
  const say = (line: string) => out.write(`${line}\n`);
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once('SIGINT', onSigint);
  try {
    const r = await coordinateSweep(cfg, { ...plan, signal: stop.signal, say });
    say(`\n${cfg.parameter.padStart(12)} ${'requests'.padStart(9)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  flag`);
    for (const p of r.curve) {
      say(`${formatLevel(p.level).padStart(12)} ${String(p.requests).padStart(9)} ${formatQps(p.qps).padStart(9)} ${formatMs(p.p50_ms).padStart(8)} ${formatMs(p.p99_ms).padStart(8)}  ${p.health?.generator_limited ? (p.health.reason ?? 'flagged') : ''}`);
    }
    say(`agents: ${r.agents.agents.map((a) => `${a.agent_id} (${a.state}, ${a.stored} events, clock ${formatSignedClockMs(a.clock_offset_ms)} ms)`).join(', ')}`);
    say(`${r.status}: ${r.runUrl}`);
    if (r.runIds.length > 1) say(`${r.runIds.length} repeats of ${cfg.run.release} (the curve above is the first): ${r.runIds.join(',')}`);
    if (r.search) say(searchSummary(r.search, cfg.parameter, cfg.slos.map((c) => formatSlo(c)).join(', ')));
    if (json) process.stdout.write(`${JSON.stringify({ run_id: r.runId, run_ids: r.runIds, run_url: r.runUrl, status: r.status, steps: r.fleet.steps, curve: r.curve, agents: r.agents, ...(r.search ? { search: r.search } : {}) })}\n`);
    const partial = r.fleet.steps.some((s) => s.partial);
    process.exitCode = r.status === 'aborted' ? EXIT.interrupted : partial ? EXIT.failed : EXIT.ok;
  } catch (err) {
    if (!(err instanceof SweepError)) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = EXIT.failed;
      return;
    }
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = err.kind === 'config' ? EXIT.usage : EXIT.failed;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
