import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { KneeboardApi } from '@kneeboard/agent-sdk';
import { ApiHttpError } from '@kneeboard/api-client';
import type { CurvePoint, FleetPlanInput, FleetStatus, RunAgents } from '@kneeboard/contracts';
import type { SweepConfig } from '../sweep/config.ts';
import { openServerCost, type SweepServerCost } from '../sweep/server-cost.ts';
import { checkApi } from '../sweep/preflight.ts';
import { repeatRun } from '../sweep/repeat-run.ts';
import type { SearchResult } from '../sweep/search-levels.ts';
import { SweepError } from '../sweep/sweep-error.ts';
import { coordinatorReadProblem, FleetApi } from './fleet-api.ts';
import { PlanExtension } from './plan-extension.ts';
import { planRequestOf } from './plan-request.ts';
import { withMixTags } from '../mix/request-mix.ts';

export interface CoordinateOptions {
  /** Agents that must join before the first step. */
  agents: number;
  signal?: AbortSignal;
  say?: (line: string) => void;
  /** Plan knobs; the API's defaults otherwise. */
  leadMs?: number;
  heartbeatTimeoutMs?: number;
  startToleranceMs?: number;
  /** Longest wait for the agents to deliver and leave once the last step settled. */
  leaveTimeoutMs?: number;
}

export interface CoordinateResult {
  runId: string;
  /** Every run of the sweep: one, or one per --repeat (the plan's own first). */
  runIds: string[];
  runUrl: string;
  status: 'finished' | 'aborted';
  fleet: FleetStatus;
  curve: CurvePoint[];
  agents: RunAgents;
  /** `--search`: the capacity found under the SLOs and every level judged; null otherwise. */
  search: SearchResult | null;
}

const POLL_MS = 250;

/** A sweep's options the API cannot hand to other hosts (see planRequestOf), or null. */
export function fleetConfigProblem(cfg: SweepConfig): string | null {
  try {
    planRequestOf(cfg);
    return null;
  } catch (err) {
    if (err instanceof SweepError) return err.message;
    throw err;
  }
}

/**
 * `kneeboard sweep … --agents N`: creates the run, gives the API the plan, waits while N agents
 * (`kneeboard agent --join RUN`) join and drive it step by step, then finishes the run once they
 * have delivered their events. This process sends no load itself.
 */
export async function coordinateSweep(sweep: SweepConfig, o: CoordinateOptions): Promise<CoordinateResult> {
  // Before anything is made: the plan's request (the mix, the CA's PEM) must be one the API takes.
  const request = planRequestOf(sweep);
  // The run records the mix as a one-agent sweep's does.
  const cfg = withMixTags(sweep);
  const say = o.say ?? (() => {});
  if (cfg.requests && cfg.requests.skipped > 0) say(`warning: --requests: ${cfg.requests.skipped} requests of the HAR to other origins than its page's are left out`);
  const api = new KneeboardApi({ baseUrl: cfg.api, token: cfg.token, retry: cfg.retry });
  const extension = new PlanExtension(cfg, say, o.signal ?? new AbortController().signal);
  let serverCost: SweepServerCost | undefined;
  try {
    await checkApi(api);
    // Before any run is made: told at the end, after the whole sweep, it would cost the user the sweep.
    const unreadable = await coordinatorReadProblem(cfg.api, cfg.token);
    if (unreadable) throw new SweepError('config', unreadable);
    // What the server spends (issue 28): read here, once per run, never by the agents.
    const opened = await openServerCost(cfg, say);
    if (opened && 'error' in opened) throw new SweepError('target-unreachable', opened.error);
    serverCost = opened?.cost;
    // With a --before-level command the target may only exist once the first level's command ran.
    await extension.prepare(cfg.levels[0]!);
    // --repeat: one run per repeat, its levels interleaved with the others' in one plan, so drift
    // on the target lands on every repeat alike; the agents join the first.
    const group = cfg.repeat > 1 ? randomUUID() : null;
    const runIds: string[] = [];
    for (let r = 0; r < cfg.repeat; r++) {
      const run = repeatRun(cfg, r, group);
      runIds.push(await api.createRun({ ...run, agent_host: hostname(), agent_cores: undefined, tags: { ...run.tags, agents: String(o.agents) } }));
    }
    extension.setRuns(runIds);
    const runId = runIds[0]!;
    const runUrl = `${cfg.web.replace(/\/+$/, '')}/runs/${runId}`;
    const fleet = new FleetApi(cfg.api, runId, cfg.token);
    const plan: FleetPlanInput = {
      agents: o.agents,
      load_model: cfg.loadModel,
      arrivals: cfg.arrivals,
      think_time_ms: cfg.thinkTimeMs,
      steps: extension.initialSteps(),
      ...(extension.open ? { open: true, open_timeout_ms: extension.openTimeoutMs() } : {}),
      warmup_ms: cfg.warmupMs,
      duration_ms: cfg.durationMs,
      request,
      ...(o.leadMs === undefined ? {} : { lead_ms: o.leadMs }),
      ...(o.heartbeatTimeoutMs === undefined ? {} : { heartbeat_timeout_ms: o.heartbeatTimeoutMs }),
      ...(o.startToleranceMs === undefined ? {} : { start_tolerance_ms: o.startToleranceMs }),
    };
    await fleet.plan(plan);
    say(`run ${runUrl}`);
    for (const other of runIds.slice(1)) say(`run ${cfg.web.replace(/\/+$/, '')}/runs/${other} (repeat ${runIds.indexOf(other) + 1} of ${cfg.repeat})`);
    say(`waiting for ${o.agents} agent${o.agents === 1 ? '' : 's'}; on each load host:\n  kneeboard agent --api ${cfg.api} --join ${runId}${cfg.token ? ' --token <ingest token>' : ''}`);

    let status: FleetStatus;
    try {
      status = await followPlan(fleet, cfg, o, say, extension, (s) =>
        serverCost?.postStep({ level: s.level, startedAt: s.barrier_at, measureFrom: s.barrier_at + cfg.warmupMs, endedAt: s.barrier_at + cfg.warmupMs + cfg.durationMs }, (batch) => api.postServerMetrics(s.run_id, batch)),
      );
    } catch (err) {
      if (err instanceof SweepError) {
        // A --before-level command failed or the target never became ready: the agents are
        // released, and the run keeps the steps measured so far.
        await fleet.close().catch(() => undefined);
        for (const id of runIds) await api.finishRun(id, 'aborted').catch(() => undefined);
        throw new SweepError(err.kind, `${err.message}; run ${runUrl} is marked aborted, with the steps measured before`, { cause: err });
      }
      // The plan lives in storage and outlives an API restart; it is lost only when the run is
      // deleted, or the API stays away longer than the retries wait. The run is not left "running"
      // for ever: it is closed as aborted, and the events the agents delivered stay in it.
      for (const id of runIds) await api.finishRun(id, 'aborted').catch(() => undefined);
      throw new SweepError('api-failed', `${planLost(err)}; run ${runUrl} is marked aborted, with the events the agents delivered`, { cause: err });
    }
    await serverCost?.close();
    const runStatus = o.signal?.aborted ? 'aborted' : 'finished';
    for (const id of runIds) await api.finishRun(id, runStatus);
    let detail: Awaited<ReturnType<FleetApi['detail']>>;
    let agents: RunAgents;
    try {
      [detail, agents] = [await fleet.detail(), await fleet.agents()];
    } catch (err) {
      // The run is stored and finished; only the summary could not be read (a token revoked meanwhile, say).
      throw new SweepError('api-failed', `run ${runUrl} is ${runStatus}, but its curve and agents could not be read for the summary (${(err as Error).message})`, { cause: err });
    }
    return { runId, runIds, runUrl, status: runStatus, fleet: status, curve: detail.curve, agents, search: extension.search };
  } finally {
    await serverCost?.close();
    await api.close();
  }
}

/** Why the coordinator could not follow the plan, in the user's terms. */
function planLost(err: unknown): string {
  if (err instanceof ApiHttpError && err.status === 404) return 'the API no longer holds this run\'s plan (the run was deleted)';
  return `lost the API mid-plan (${(err as Error).message})`;
}

/** Polls the plan's status, telling the user who joined and which step settled, until it is done and the agents left. */
async function followPlan(
  fleet: FleetApi,
  cfg: SweepConfig,
  o: CoordinateOptions,
  say: (line: string) => void,
  extension: PlanExtension,
  onSettled?: (step: FleetStatus['steps'][number]) => void,
): Promise<FleetStatus> {
  // Through a blip or an API restart the status is asked again (FleetApi's retries); an answer is believed at once.
  const statusOf = () => fleet.status();
  let status: FleetStatus = await statusOf();
  const told = new Set<number>();
  const joined = new Set<string>();
  let doneSince: number | null = null;
  const leaveTimeout = o.leaveTimeoutMs ?? 60_000;
  while (!o.signal?.aborted) {
    status = await statusOf();
    for (const a of status.agents) {
      if (!joined.has(a.agent_id)) say(`agent ${a.agent_id} joined`);
      joined.add(a.agent_id);
    }
    for (const s of status.steps) {
      if (!s.finished || told.has(s.index)) continue;
      told.add(s.index);
      onSettled?.(s);
      const repeat = cfg.repeat > 1 ? ` (repeat ${extension.repeatOf(s.run_id)})` : '';
      say(`step ${s.index + 1}/${Math.max(status.planned, cfg.levels.length * cfg.repeat)}: ${cfg.parameter} ${s.level}${repeat} settled${s.partial ? ' · PARTIAL' : ''}${s.generator_limited ? ` · FLAGGED: ${s.reason ?? ''}` : ''}`);
    }
    if (status.awaiting_steps) {
      // Every step so far has run: the next level (its command first), the refined ones, or the end.
      const next = await extension.next(async () => (await fleet.detail()).curve);
      await (next.kind === 'close' ? fleet.close() : fleet.addSteps(next.steps));
      continue;
    }
    if (status.done) {
      doneSince ??= Date.now();
      const settled = status.agents.every((a) => a.state === 'left' || a.state === 'lost');
      if (settled || Date.now() - doneSince > leaveTimeout) break;
    }
    await sleep(POLL_MS);
  }
  // Stopped with Ctrl-C: an open plan is closed, so its agents leave once the step under way ends.
  if (o.signal?.aborted && status.open) await fleet.close().catch(() => undefined);
  return status;
}
