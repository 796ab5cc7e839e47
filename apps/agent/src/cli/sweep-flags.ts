import type { z } from 'zod';
import { DEFAULT_CLOSED_LEVELS, type SweepInput } from '../sweep/config.ts';
import type { RequestFile } from './parse-flags.ts';
import type { RequestMix } from '../mix/request-mix.ts';

/**
 * The sweep command's flags as commander hands them over (after each flag's own parser). A flag
 * not given is undefined: the defaults are SweepConfig's (FleetPlanBody's for the fleet knobs),
 * filled in when the input is parsed, and only shown in --help from there.
 */
export interface SweepFlags {
  target: string;
  concurrency?: number[];
  levels?: number[];
  rate?: number[];
  arrivals?: 'uniform' | 'poisson';
  thinkTime?: number;
  maxConnections?: number;
  engineBinary?: string;
  engine?: 'auto' | 'node' | 'native';
  insecure?: boolean;
  caFile?: string;
  http?: '1.1' | '2' | 'auto';
  http2?: boolean;
  connections?: number;
  threads?: number;
  param?: string;
  beforeLevel?: string;
  readyUrl?: string;
  readyTimeout?: number;
  metricsUrl?: string;
  metric?: string[];
  targetPid?: number;
  cgroup?: string;
  prometheus?: string;
  promql?: string[];
  cores?: number;
  duration?: number;
  warmup?: number;
  repeat?: number;
  refine?: boolean;
  slo?: string[];
  search?: boolean;
  precision?: number;
  maxOver?: number;
  service: string;
  release: string;
  name?: string;
  gitSha?: string;
  tag?: Record<string, string>;
  method?: string;
  header?: Record<string, string>;
  body?: string | Buffer;
  requestFile?: RequestFile;
  requests?: RequestMix;
  timeout?: number;
  computeMetric?: string[];
  queueMetric?: string[];
  agentId?: string;
  api?: string;
  token?: string;
  web?: string;
  spoolDir?: string;
  flushInterval?: number;
  deliveryTimeout?: number;
  json?: boolean;
  agents?: number;
  agentTimeout?: number;
  barrierLead?: number;
}

/** A SweepConfig field a flag can set: `durationMs`, or one level down, `request.timeoutMs`. */
export type FieldPath = {
  [K in keyof SweepInput & string]-?: K extends 'run' | 'request' | 'serverTiming' ? `${K}.${keyof NonNullable<SweepInput[K]> & string}` : K;
}[keyof SweepInput & string];

/**
 * The one table of flag → SweepConfig field, for every flag that sets one field as given (dotted
 * paths are nested). toSweepInput copies by it and a schema error names the flag from it. The load
 * flags (-c, --levels, --rate, --param), --request-file and the coordinator's flags are read by hand.
 */
export const FLAG_FIELD = {
  target: 'target',
  arrivals: 'arrivals',
  thinkTime: 'thinkTimeMs',
  maxConnections: 'maxConnections',
  engineBinary: 'engineBinary',
  engine: 'engine',
  insecure: 'insecure',
  caFile: 'caFile',
  http: 'http',
  connections: 'connections',
  threads: 'threads',
  beforeLevel: 'beforeLevel',
  readyUrl: 'readyUrl',
  readyTimeout: 'readyTimeoutMs',
  metricsUrl: 'metricsUrl',
  metric: 'metric',
  targetPid: 'targetPid',
  cgroup: 'cgroup',
  prometheus: 'prometheus',
  promql: 'promql',
  cores: 'cores',
  duration: 'durationMs',
  warmup: 'warmupMs',
  repeat: 'repeat',
  refine: 'refine',
  slo: 'slo',
  search: 'search',
  precision: 'precision',
  maxOver: 'maxOver',
  service: 'run.service',
  release: 'run.release',
  name: 'run.name',
  gitSha: 'run.git_sha',
  tag: 'run.tags',
  requests: 'requests',
  timeout: 'request.timeoutMs',
  computeMetric: 'serverTiming.compute',
  queueMetric: 'serverTiming.queue',
  agentId: 'agentId',
  api: 'api',
  token: 'token',
  web: 'web',
  spoolDir: 'spoolDir',
  flushInterval: 'flushIntervalMs',
  deliveryTimeout: 'deliveryTimeoutMs',
} as const satisfies Partial<Record<keyof SweepFlags, FieldPath>>;

/** `gitSha` → `--git-sha`: commander's attribute name back to the flag the user typed. */
export const flagName = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

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
    levels = f.concurrency ?? f.levels ?? DEFAULT_CLOSED_LEVELS;
  }
  if (f.http2 && f.http !== undefined && f.http !== '2') return { error: `--http2 and --http ${f.http}: give one of them` };
  // The Node engine has no HTTP/2: said here, naming the flag the user typed.
  if (f.http2 && f.engine === 'node') return { error: '--http2: needs the native engine (--engine native or auto); the Node engine speaks HTTP/1.1 only' };
  // A mix names every request's method, path and body itself; -H headers still go on all of them.
  if (f.requests) {
    const clash = (['method', 'body', 'requestFile'] as const).find((k) => f[k] !== undefined);
    if (clash) return { error: `--requests and ${flagName(clash)}: the mix gives each request's method, path and body (-H headers apply to all)` };
  }
  const file = f.requestFile ?? {};
  const fields = fieldsFromFlags(f);
  if (f.http2) fields.http = '2';
  const levelsFlag = f.param === undefined && f.rate ? '--rate' : f.concurrency && f.param === undefined ? '--concurrency' : '--levels';
  return {
    levelsFlag,
    input: {
      ...fields,
      loadModel,
      levels,
      parameter: f.param,
      hold,
      // Flags win over the request file, field by field (headers merged).
      request: {
        ...fields.request,
        method: f.method ?? file.method,
        path: file.path,
        headers: { ...file.headers, ...f.header },
        body: f.body ?? file.body,
      },
    } as SweepInput,
  };
}

/** Copies each flag given onto its SweepConfig field (FLAG_FIELD); a flag not given stays unset. */
function fieldsFromFlags(f: SweepFlags): Record<string, unknown> & { request: Record<string, unknown> } {
  const nested = { run: {}, request: {}, serverTiming: {} } as Record<string, Record<string, unknown>>;
  const top: Record<string, unknown> & { request: Record<string, unknown> } = { ...nested, request: nested.request! };
  for (const [key, field] of Object.entries(FLAG_FIELD)) {
    const value = f[key as keyof SweepFlags];
    if (value === undefined) continue;
    const [head, leaf] = field.split('.') as [string, string | undefined];
    if (leaf === undefined) top[head] = value;
    else nested[head]![leaf] = value;
  }
  return top;
}

/** Which flag set each SweepConfig field, so a schema error can name what the user typed. */
const FLAG_OF: Record<string, string> = {
  ...Object.fromEntries(Object.entries(FLAG_FIELD).map(([key, field]) => [field, flagName(key)])),
  levels: '--levels',
  hold: '--concurrency/--rate',
  parameter: '--param',
  'request.method': '--method',
  'request.path': '--request-file',
  'request.headers': '--header',
  'request.body': '--body',
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
