import { createServerTimingParser, type ServerTimingParser } from '@kneeboard/agent-sdk';
import type { FleetRequest } from '@kneeboard/contracts';
import { DEFAULT_ENGINE_BINARY, resolveEngine, type EngineChoice } from '../native/engine-binary.ts';
import { prepareNativeRequest } from '../native/native-request.ts';
import type { TargetRequest } from '../load/target-client.ts';
import type { StepEngine } from '../sweep/run-step.ts';
import { SweepError } from '../sweep/sweep-error.ts';

export interface AgentEngine {
  engine: StepEngine;
  origin: string;
  request: TargetRequest;
  parseTiming: ServerTimingParser;
  note: string | undefined;
  dispose(): void;
}

/** The engine an agent drives its shares with, for the request the plan names (the same choice as a sweep's). */
export function agentEngine(plan: FleetRequest, choice: EngineChoice, threads: number | undefined, binary = DEFAULT_ENGINE_BINARY): AgentEngine {
  const target = new URL(plan.target);
  const request: TargetRequest = {
    path: target.pathname + target.search,
    method: plan.method,
    headers: { 'user-agent': 'kneeboard-agent', ...plan.headers },
    body: plan.body ?? undefined,
    timeoutMs: plan.timeout_ms,
  };
  const timing = { compute: ['compute'], queue: ['queue'] };
  const chosen = resolveEngine(choice, target, binary);
  if ('error' in chosen) throw new SweepError('config', chosen.error);
  let engine: StepEngine = { kind: 'node' };
  if (chosen.engine === 'native') engine = { kind: 'native', binary, request: prepareNativeRequest(target.origin, request, timing), threads };
  return {
    engine,
    origin: target.origin,
    request,
    parseTiming: createServerTimingParser(timing),
    note: chosen.note,
    dispose: () => {
      if (engine.kind === 'native') engine.request.dispose();
    },
  };
}
