import type { z } from 'zod';
import type { SweepInput } from '../sweep/config.ts';

/** The sweep command's flags as commander hands them over (after each flag's own parser). */
export interface SweepFlags {
  target: string;
  levels: number[];
  duration: number;
  warmup: number;
  service: string;
  release: string;
  name?: string;
  gitSha?: string;
  tag?: Record<string, string>;
  method?: string;
  header?: Record<string, string>;
  body?: string | Buffer;
  timeout: number;
  agentId?: string;
  api: string;
  web: string;
  json?: boolean;
}

export function toSweepInput(f: SweepFlags): SweepInput {
  return {
    target: f.target,
    levels: f.levels,
    durationMs: f.duration,
    warmupMs: f.warmup,
    run: { service: f.service, release: f.release, name: f.name, git_sha: f.gitSha, tags: f.tag },
    request: { method: f.method, headers: f.header, body: f.body, timeoutMs: f.timeout },
    api: f.api,
    web: f.web,
    agentId: f.agentId,
  };
}

/** Which flag set each SweepConfig field, so a schema error can name what the user typed. */
const FLAG_OF: Record<string, string> = {
  target: '--target',
  levels: '--levels',
  durationMs: '--duration',
  warmupMs: '--warmup',
  'run.service': '--service',
  'run.release': '--release',
  'run.name': '--name',
  'run.git_sha': '--git-sha',
  'run.tags': '--tag',
  'request.method': '--method',
  'request.headers': '--header',
  'request.timeoutMs': '--timeout',
  api: '--api',
  web: '--web',
  agentId: '--agent-id',
};

/** `--git-sha: must be a hex git sha`, one line per problem. */
export function describeFlagIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String);
    const key = path.length >= 2 && (path[0] === 'run' || path[0] === 'request') ? `${path[0]}.${path[1]}` : (path[0] ?? '');
    return `${FLAG_OF[key] ?? (key || 'options')}: ${issue.message}`;
  });
}
