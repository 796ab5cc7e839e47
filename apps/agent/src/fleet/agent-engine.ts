import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServerTimingParser, type ServerTimingParser } from '@kneeboard/agent-sdk';
import type { FleetRequest } from '@kneeboard/contracts';
import { nameIndex } from '../mix/request-mix.ts';
import { DEFAULT_ENGINE_BINARY, resolveEngine, type EngineChoice } from '../native/engine-binary.ts';
import { prepareNativeRequest } from '../native/native-request.ts';
import type { TargetRequest, TargetTls } from '../load/target-client.ts';
import type { StepEngine, StepMix } from '../sweep/run-step.ts';
import { SweepError } from '../sweep/sweep-error.ts';
import { mixTargetRequests } from '../sweep/target-request.ts';

export interface AgentEngine {
  engine: StepEngine;
  origin: string;
  request: TargetRequest;
  /** The plan's request mix, as a step drives it; undefined for the one request. */
  mix: StepMix | undefined;
  parseTiming: ServerTimingParser;
  note: string | undefined;
  dispose(): void;
}

/**
 * The engine an agent drives its shares with, for the request the plan names (the same choice as a
 * sweep's): the one request or the mix, with the plan's TLS trust and HTTP version. The plan carries
 * a CA as PEM (the coordinator's file is not on this host): it is written to a file of this agent's
 * own, which the native engine reads, and removed by `dispose`.
 */
export function agentEngine(plan: FleetRequest, choice: EngineChoice, threads: number | undefined, binary = DEFAULT_ENGINE_BINARY): AgentEngine {
  const target = new URL(plan.target);
  let dir: string | undefined;
  const dispose = () => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
  let tls: TargetTls | undefined;
  if (target.protocol === 'https:') {
    tls = { insecure: plan.insecure };
    if (plan.ca_pem !== undefined) {
      dir = mkdtempSync(join(tmpdir(), 'kb-agent-ca-'));
      const caFile = join(dir, 'ca.pem');
      writeFileSync(caFile, plan.ca_pem);
      tls = { ...tls, caFile, caPem: plan.ca_pem };
    }
  }
  const request: TargetRequest = {
    path: target.pathname + target.search,
    method: plan.method,
    headers: { 'user-agent': 'kneeboard-agent', ...plan.headers },
    body: plan.body ?? undefined,
    timeoutMs: plan.timeout_ms,
    ...(tls ? { tls } : {}),
  };
  const mix: StepMix | undefined = plan.requests && {
    requests: mixTargetRequests(
      plan.requests.map((r) => ({ ...r, body: r.body ?? undefined })),
      request,
    ),
    weights: plan.requests.map((r) => r.weight),
    ...nameIndex(plan.requests),
  };
  const timing = { compute: ['compute'], queue: ['queue'] };
  const chosen = resolveEngine(choice, target, binary, plan.http);
  if ('error' in chosen) {
    dispose();
    throw new SweepError('config', `the plan's request: ${chosen.error}`);
  }
  let engine: StepEngine = { kind: 'node' };
  if (chosen.engine === 'native') {
    try {
      engine = { kind: 'native', binary, request: prepareNativeRequest(target.origin, request, timing, { http: plan.http, connections: plan.connections }, mix), threads };
    } catch (err) {
      dispose();
      throw new SweepError('config', `the plan's request: ${(err as Error).message}`);
    }
  }
  return {
    engine,
    origin: target.origin,
    request,
    mix,
    parseTiming: createServerTimingParser(timing),
    note: chosen.note,
    dispose: () => {
      if (engine.kind === 'native') engine.request.dispose();
      dispose();
    },
  };
}
