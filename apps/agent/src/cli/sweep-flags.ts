import type { z } from 'zod';
import type { SweepInput } from '../sweep/config.ts';
import type { RequestFile } from './parse-flags.ts';

/** The sweep command's flags as commander hands them over (after each flag's own parser). */
export interface SweepFlags {
  target: string;
  concurrency?: number[];
  levels?: number[];
  rate?: number[];
  arrivals: 'uniform' | 'poisson';
  thinkTime: number;
  maxConnections?: number;
  engineBinary?: string;
  engine: 'auto' | 'node' | 'native';
  threads?: number;
  param?: string;
  beforeLevel?: string;
  readyUrl?: string;
  readyTimeout: number;
  duration: number;
  warmup: number;
  repeat: number;
  refine?: boolean;
  service: string;
  release: string;
  name?: string;
  gitSha?: string;
  tag?: Record<string, string>;
  method?: string;
  header?: Record<string, string>;
  body?: string | Buffer;
  requestFile?: RequestFile;
  timeout: number;
  computeMetric?: string[];
  queueMetric?: string[];
  agentId?: string;
  api: string;
  token?: string;
  web: string;
  spoolDir: string;
  flushInterval: number;
  deliveryTimeout: number;
  json?: boolean;
  agents?: number;
  agentTimeout: number;
  barrierLead: number;
}

const DEFAULT_CONCURRENCY = [1, 2, 4, 8, 16];

/**
 * Flags → sweep options. Which load model and which knob follow from the flags given:
 * `--rate` → open loop; `--concurrency`/`--levels` → closed loop; `--param` → the levels are that
 * knob's values and one `--concurrency` or `--rate` is held. Combinations that cannot mean anything
 * come back as a message naming the flags.
 */
export function toSweepInput(f: SweepFlags): { input: SweepInput; levelsFlag: string } | { error: string } {
  let loadModel: 'closed' | 'open';
  let levels: number[];
  let hold: number | undefined;
  if (f.rate && f.concurrency) return { error: '--rate and --concurrency: give one of them (open loop at a rate, or closed loop at a concurrency)' };
  if (f.param !== undefined) {
    if (!f.levels) return { error: `--levels: give the values of --param ${f.param}, e.g. --levels 1,2,4,8` };
    const held = f.rate ?? f.concurrency;
    if (!held) return { error: `--param ${f.param}: give the load to hold at every level, --concurrency N or --rate R` };
    if (held.length !== 1) return { error: `${f.rate ? '--rate' : '--concurrency'}: with --param, give one value (the load held at every level)` };
    loadModel = f.rate ? 'open' : 'closed';
    levels = f.levels;
    hold = held[0];
  } else if (f.rate) {
    if (f.levels) return { error: '--levels with --rate: the rates are the levels; drop --levels' };
    loadModel = 'open';
    levels = f.rate;
  } else {
    if (f.levels && f.concurrency) return { error: '--levels and --concurrency: give one of them' };
    loadModel = 'closed';
    levels = f.concurrency ?? f.levels ?? DEFAULT_CONCURRENCY;
  }
  const file = f.requestFile ?? {};
  const levelsFlag = f.param === undefined && f.rate ? '--rate' : f.concurrency && f.param === undefined ? '--concurrency' : '--levels';
  return {
    levelsFlag,
    input: {
      target: f.target,
      loadModel,
      levels,
      parameter: f.param,
      hold,
      arrivals: f.arrivals,
      thinkTimeMs: f.thinkTime,
      maxConnections: f.maxConnections,
      engineBinary: f.engineBinary,
      engine: f.engine,
      threads: f.threads,
      beforeLevel: f.beforeLevel,
      readyUrl: f.readyUrl,
      readyTimeoutMs: f.readyTimeout,
      durationMs: f.duration,
      warmupMs: f.warmup,
      repeat: f.repeat,
      refine: f.refine ?? false,
      run: { service: f.service, release: f.release, name: f.name, git_sha: f.gitSha, tags: f.tag },
      // Flags win over the request file, field by field (headers merged).
      request: {
        method: f.method ?? file.method,
        path: file.path,
        headers: { ...file.headers, ...f.header },
        body: f.body ?? file.body,
        timeoutMs: f.timeout,
      },
      serverTiming: { compute: f.computeMetric, queue: f.queueMetric },
      api: f.api,
      token: f.token,
      web: f.web,
      agentId: f.agentId,
      spoolDir: f.spoolDir,
      flushIntervalMs: f.flushInterval,
      deliveryTimeoutMs: f.deliveryTimeout,
    },
  };
}

/** Which flag set each SweepConfig field, so a schema error can name what the user typed. */
const FLAG_OF: Record<string, string> = {
  target: '--target',
  levels: '--levels',
  hold: '--concurrency/--rate',
  parameter: '--param',
  beforeLevel: '--before-level',
  readyUrl: '--ready-url',
  readyTimeoutMs: '--ready-timeout',
  thinkTimeMs: '--think-time',
  maxConnections: '--max-connections',
  engine: '--engine',
  threads: '--threads',
  engineBinary: '--engine-binary',
  durationMs: '--duration',
  warmupMs: '--warmup',
  'run.service': '--service',
  'run.release': '--release',
  'run.name': '--name',
  'run.git_sha': '--git-sha',
  'run.tags': '--tag',
  'request.method': '--method',
  'request.path': '--request-file',
  'request.headers': '--header',
  'request.timeoutMs': '--timeout',
  'serverTiming.compute': '--compute-metric',
  'serverTiming.queue': '--queue-metric',
  api: '--api',
  token: '--token',
  web: '--web',
  agentId: '--agent-id',
  spoolDir: '--spool-dir',
  flushIntervalMs: '--flush-interval',
  deliveryTimeoutMs: '--delivery-timeout',
};

/** `--git-sha: must be a hex git sha`, one line per problem. */
export function describeFlagIssues(error: z.ZodError, levelsFlag: string): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String);
    const key = path.length >= 2 && ['run', 'request', 'serverTiming'].includes(path[0]!) ? `${path[0]}.${path[1]}` : (path[0] ?? '');
    // A bad level names the flag it came from: --rate, --concurrency or --levels.
    const flag = key === 'levels' ? levelsFlag : FLAG_OF[key];
    return `${flag ?? (key || 'options')}: ${issue.message}`;
  });
}
