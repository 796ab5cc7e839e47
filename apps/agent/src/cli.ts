import { Command, CommanderError, Option } from 'commander';
import { describeFlagIssues, toSweepInput, type SweepFlags } from './cli/sweep-flags.ts';
import { collectHeader, collectTag, parseBody, parseDuration, parseLevels } from './cli/parse-flags.ts';
import { createTerminalReporter } from './cli/terminal-reporter.ts';
import { SweepConfig } from './sweep/config.ts';
import { runSweep } from './sweep/run-sweep.ts';
import { SweepError } from './sweep/sweep-error.ts';

/** 2 = the command line was wrong; 1 = something failed; 130 = stopped with Ctrl-C (128 + SIGINT). */
const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

const program = new Command('kneeboard')
  .description('Sweep a service through load levels and stream every request to Kneeboard.')
  .showHelpAfterError('(run with --help for usage)')
  // Throw instead of exiting, so every usage error leaves with code 2 (commander would use 1).
  .exitOverride();

program
  .command('sweep')
  .description('closed-loop sweep: at level c, exactly c requests in flight on c keep-alive connections')
  .requiredOption('--target <url>', 'URL every request goes to')
  .addOption(new Option('-c, --levels <list>', 'concurrency levels, in order').argParser(parseLevels).default([1, 2, 4, 8, 16], '1,2,4,8,16'))
  .addOption(new Option('-d, --duration <time>', 'measured time per level (500ms, 10s, 2m)').argParser(parseDuration).default(10_000, '10s'))
  .addOption(new Option('--warmup <time>', 'unmeasured time at the start of each level').argParser(parseDuration).default(2_000, '2s'))
  .requiredOption('--service <name>', 'service under test')
  .requiredOption('--release <label>', 'release or build being measured')
  .option('--name <name>', 'a name for this run')
  .option('--git-sha <sha>', 'commit being measured')
  .option('--tag <key=value>', 'a tag on the run (repeatable)', collectTag)
  .option('--method <method>', 'HTTP method (default GET, or POST with --body)')
  .option('-H, --header <header>', "request header 'Name: value' (repeatable)", collectHeader)
  .option('--body <text|@file>', 'request body, or @path to read it from a file', parseBody)
  .addOption(new Option('--timeout <time>', 'longest wait for a response, then it counts as an error').argParser(parseDuration).default(30_000, '30s'))
  .option('--agent-id <id>', 'this agent in the stored events (default <hostname>-<pid>)')
  .option('--api <url>', 'Kneeboard API', 'http://127.0.0.1:4000')
  .option('--web <url>', 'Kneeboard web UI, for the run link', 'http://127.0.0.1:3000')
  .option('--json', 'print the final per-level table as JSON on stdout (the live view goes to stderr)')
  .addHelpText(
    'after',
    `
Example:
  kneeboard sweep --target http://127.0.0.1:4100/ --levels 1,2,4,8,16 --duration 10s --warmup 2s \\
    --service demo --release v1 --tag host=laptop

Exit codes: 0 done, 1 failed (target or API unreachable, API error, events lost), 2 bad flags,
130 stopped with Ctrl-C (the run is finished as 'aborted' after flushing what was measured).`,
  )
  .action(sweep);

async function sweep(flags: SweepFlags): Promise<void> {
  const input = toSweepInput(flags);
  const checked = SweepConfig.safeParse(input);
  if (!checked.success) {
    for (const line of describeFlagIssues(checked.error)) process.stderr.write(`error: ${line}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  const cfg = checked.data;
  const reporter = createTerminalReporter({ out: flags.json ? process.stderr : process.stdout, err: process.stderr });
  reporter.say(
    `sweep ${cfg.request.method} ${cfg.target} · levels ${cfg.levels.join(',')} · ` +
      `${cfg.warmupMs / 1000} s warm-up + ${cfg.durationMs / 1000} s measured per level`,
  );

  const stop = new AbortController();
  let runCreated = false;
  const onSigint = () => {
    // Before the run exists there is nothing to flush or finish.
    if (!runCreated) process.exit(EXIT.interrupted);
    reporter.say('stopping: flushing events and marking the run aborted (Ctrl-C again to quit at once)');
    process.once('SIGINT', () => process.exit(EXIT.interrupted));
    stop.abort();
  };
  process.once('SIGINT', onSigint);

  try {
    const result = await runSweep(input, {
      signal: stop.signal,
      reporter: {
        ...reporter,
        runCreated: (run) => {
          runCreated = true;
          reporter.runCreated?.(run);
        },
      },
    });
    const u = result.upload;
    reporter.say(
      `\n${result.status === 'aborted' ? 'stopped' : 'done'}: ${u.recorded} requests recorded, ${u.uploaded} uploaded in ${u.batches} batches` +
        `${u.lostEvents > 0 ? `, ${u.lostEvents} LOST` : ''} · ${result.runUrl}`,
    );
    if (flags.json) {
      const { runId, runUrl, status, levels } = result;
      const upload = { recorded: u.recorded, uploaded: u.uploaded, batches: u.batches, duplicate_batches: u.duplicateBatches, lost_events: u.lostEvents };
      process.stdout.write(`${JSON.stringify({ run_id: runId, run_url: runUrl, status, levels, upload }, null, 2)}\n`);
    }
    process.exitCode = result.status === 'aborted' ? EXIT.interrupted : u.lostEvents > 0 ? EXIT.failed : EXIT.ok;
  } catch (err) {
    if (!(err instanceof SweepError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = err.kind === 'config' ? EXIT.usage : EXIT.failed;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

try {
  await program.parseAsync();
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  // commander has already printed the message; help and --version are not errors.
  process.exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? EXIT.ok : EXIT.usage;
}
