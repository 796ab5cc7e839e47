import { DEFAULT_SPOOL_DIR } from '@kneeboard/agent-sdk';
import { DEFAULT_API_URL, DEFAULT_WEB_URL } from '@kneeboard/contracts';
import type { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { fleetDefault, importDefault, sweepDefault } from '../src/cli/flag-defaults.ts';
import { importCommand } from '../src/cli/import-command.ts';
import { parseDuration } from '../src/cli/parse-flags.ts';
import { sweepCommand } from '../src/cli/sweep-command.ts';
import { FLAG_FIELD, flagName, toSweepInput, type SweepFlags } from '../src/cli/sweep-flags.ts';
import { SweepConfig } from '../src/sweep/config.ts';

/** The sweep command's flags parsed as the CLI parses them, without running the sweep. */
function parseSweep(args: string[]): { flags: SweepFlags; options: readonly Option[] } {
  const cmd = sweepCommand().exitOverride().action(() => {});
  cmd.parse(['--target', 'http://127.0.0.1:1/', '--service', 's', '--release', 'r', ...args], { from: 'user' });
  return { flags: cmd.opts<SweepFlags>(), options: cmd.options };
}

function configOf(args: string[]): SweepConfig {
  const mapped = toSweepInput(parseSweep(args).flags);
  if ('error' in mapped) throw new Error(mapped.error);
  return SweepConfig.parse(mapped.input);
}

describe('the sweep flags take their defaults from SweepConfig only', () => {
  const { options } = parseSweep([]);
  const byKey = new Map(options.map((o) => [o.attributeName(), o]));

  it('no flag carries a default of its own, so none can drift from the schema', () => {
    for (const o of options) expect({ flag: o.long, default: o.defaultValue }).toEqual({ flag: o.long, default: undefined });
  });

  it('every flag in the flag → field table exists, under the name the table derives', () => {
    for (const key of Object.keys(FLAG_FIELD)) expect(byKey.get(key)?.long, key).toBe(flagName(key));
  });

  // The flags that take a value and whose field has a default; the agent id's is computed per
  // process (<hostname>-<pid>), so --help names its rule instead of a value.
  const defaulted = Object.entries(FLAG_FIELD).filter(([key, field]) => !byKey.get(key)!.isBoolean() && field !== 'agentId' && sweepDefault(field) != null);

  it('the table covers the flags with a default', () => {
    expect(defaulted.map(([key]) => key).sort()).toEqual(
      ['api', 'arrivals', 'computeMetric', 'deliveryTimeout', 'duration', 'engine', 'flushInterval', 'http', 'maxConnections', 'maxOver', 'precision', 'queueMetric', 'readyTimeout', 'repeat', 'spoolDir', 'thinkTime', 'timeout', 'warmup', 'web'].sort(),
    );
  });

  it.each(defaulted)(
    '--help shows %s’s default as the schema has it (%s), and a sweep without the flag runs with it',
    (key, field) => {
      const option = byKey.get(key)!;
      const shown = /\(default: (.+?)\)/.exec(option.description)?.[1];
      expect(shown, `${flagName(key)} --help`).toBeDefined();
      // The text shown, read back by the flag's own parser, is the schema's default.
      const text = shown!.startsWith('"') ? (JSON.parse(shown!) as string) : shown!;
      const read = option.parseArg ? option.parseArg(text, undefined) : text;
      expect(read).toEqual(sweepDefault(field));
      const [head, leaf] = field.split('.') as [keyof SweepConfig, string | undefined];
      const value = leaf === undefined ? configOf([])[head] : (configOf([])[head] as Record<string, unknown>)[leaf];
      expect(value).toEqual(sweepDefault(field));
    },
  );

  it('the coordinator’s flags show the API plan’s defaults', () => {
    expect(parseDuration(/\(default: (.+?)\)/.exec(byKey.get('agentTimeout')!.description)![1]!)).toBe(fleetDefault('heartbeat_timeout_ms'));
    expect(parseDuration(/\(default: (.+?)\)/.exec(byKey.get('barrierLead')!.description)![1]!)).toBe(fleetDefault('lead_ms'));
  });

  it('a sweep with no optional flag runs as it always has', () => {
    const cfg = configOf([]);
    expect(cfg).toMatchObject({
      loadModel: 'closed',
      levels: [1, 2, 4, 8, 16],
      arrivals: 'uniform',
      thinkTimeMs: 0,
      durationMs: 10_000,
      warmupMs: 2_000,
      readyTimeoutMs: 60_000,
      repeat: 1,
      refine: false,
      engine: 'auto',
      api: DEFAULT_API_URL,
      web: DEFAULT_WEB_URL,
      spoolDir: DEFAULT_SPOOL_DIR,
      flushIntervalMs: 500,
      deliveryTimeoutMs: 30_000,
      request: { method: 'GET', headers: {}, timeoutMs: 30_000 },
      serverTiming: { compute: ['compute'], queue: ['queue'] },
    });
    expect(DEFAULT_API_URL).toBe('http://127.0.0.1:4000');
    expect(DEFAULT_WEB_URL).toBe('http://127.0.0.1:3000');
  });

  it('a flag given wins over the default', () => {
    expect(configOf(['-d', '3s', '--warmup', '0', '--timeout', '1s', '--api', 'http://10.0.0.2:4000'])).toMatchObject({
      durationMs: 3_000,
      warmupMs: 0,
      request: { timeoutMs: 1_000 },
      api: 'http://10.0.0.2:4000',
    });
  });
});

describe('the import flags take their defaults from ImportConfig only', () => {
  const options = importCommand().options;
  const byKey = new Map(options.map((o) => [o.attributeName(), o]));
  // Flag → ImportConfig field, for the flags whose field has a default.
  const fields = { warmup: 'warmupMs', batchSize: 'maxBatchEvents', deliveryTimeout: 'deliveryTimeoutMs', inFlight: 'inFlight', followIdle: 'followIdleMs', api: 'api', web: 'web' } as const;

  it('no flag carries a default of its own but --latency-metric (a k6 parser option, not an import setting)', () => {
    const own = options.filter((o) => o.defaultValue !== undefined).map((o) => o.long);
    expect(own).toEqual(['--latency-metric']);
  });

  it.each(Object.entries(fields))('--help shows %s’s default as ImportConfig has it (%s)', (key, field) => {
    const option = byKey.get(key)!;
    const shown = /\(default: (.+?)\)/.exec(option.description)?.[1];
    expect(shown, `${option.long} --help`).toBeDefined();
    const text = shown!.startsWith('"') ? (JSON.parse(shown!) as string) : shown!;
    expect(option.parseArg ? option.parseArg(text, undefined) : text).toEqual(importDefault(field));
    expect(importDefault(field)).toBeDefined();
  });

  it('the defaults are the ones the import always had', () => {
    expect(Object.fromEntries(Object.values(fields).map((f) => [f, importDefault(f)]))).toEqual({
      warmupMs: 0,
      maxBatchEvents: 50_000,
      deliveryTimeoutMs: 60_000,
      inFlight: 4,
      followIdleMs: 30_000,
      api: DEFAULT_API_URL,
      web: DEFAULT_WEB_URL,
    });
  });
});
