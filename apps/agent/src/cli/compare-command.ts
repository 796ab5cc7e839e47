import { Command, Option } from 'commander';
import { DEFAULT_API_URL, DEFAULT_WEB_URL, parseSlos } from '@kneeboard/contracts';
import { runCompare } from '../compare/run-compare.ts';
import { CompareError } from '../compare/resolve-run.ts';
import { EXIT } from './exit-codes.ts';
import { parseThreshold } from './parse-threshold.ts';
import { collectSlo } from './search-flags.ts';
import { tokenOption } from './token-option.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function compareCommand(): Command {
  return new Command('compare')
    .description('compare runs and gate CI on a significant regression (peak throughput, or p99 at the base\'s knee)')
    .requiredOption('--base <side>', 'what to compare against: a run id, ids of repeats (ID,ID,ID), a release label (with --service), or release:SERVICE@RELEASE (all its finished runs)')
    .requiredOption('--head <side>', 'what is being judged, written like --base (repeatable, up to 7)', collect)
    .option('--service <name>', 'the service, when --base/--head are release labels (the newest finished run of each is used)')
    .addOption(new Option('--fail-on-regression <pct>', 'smallest regression that fails the gate').argParser(parseThreshold).default(0.05, '5%'))
    .option('--slo <clause>', "also compare capacity within this SLO, e.g. 'p99<=50ms' (repeatable, or comma-separated; the syntax of sweep --slo)", collectSlo)
    .addOption(new Option('--fail-on-capacity-drop <pct>', 'with --slo: smallest significant drop in capacity that fails the gate').argParser(parseThreshold))
    .option('--api <url>', 'Kneeboard API', DEFAULT_API_URL)
    .addOption(tokenOption())
    .option('--web <url>', 'Kneeboard web UI, for the link to the comparison', DEFAULT_WEB_URL)
    .option('--json', 'print the comparison and the gate result as JSON')
    .addHelpText(
      'after',
      `
Example (in CI, after a sweep of the candidate):
  kneeboard compare --service checkout --base v1.6.1 --head v1.6.2 --fail-on-regression 5%

Every run of each release (after kneeboard sweep --repeat 3), so run-to-run noise is measured:
  kneeboard compare --base release:checkout@v1.6.1 --head release:checkout@v1.6.2

Capacity within an SLO, base against head, failing on a significant drop of 5% or more:
  kneeboard compare --base release:checkout@v1.6.1 --head release:checkout@v1.6.2 --slo 'p99<=50ms' --fail-on-capacity-drop 5%

Prints a Markdown verdict table (paste it into the pull request). Exit codes: 0 no significant
regression, 1 a significant regression of at least the threshold, 2 bad flags, 3 the comparison
could not be made (unknown run or release, API unreachable).`,
    )
    .action(compare);
}

/** 3, not 1: a gate that could not look must not read as "regression found". */
const EXIT_COULD_NOT_COMPARE = 3;

type CompareCommandFlags = Omit<Parameters<typeof runCompare>[0], 'slo'> & { slo?: string[] };

async function compare(raw: CompareCommandFlags): Promise<void> {
  // --slo is read by the contracts' parser, which names a bad clause; a capacity gate needs an SLO.
  const slos = raw.slo ? parseSlos(raw.slo) : null;
  const usage = slos && !slos.ok ? `--slo: ${slos.error}` : raw.failOnCapacityDrop !== undefined && !slos ? '--fail-on-capacity-drop: needs --slo' : null;
  if (usage) {
    process.stderr.write(`error: ${usage}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  const flags = { ...raw, slo: slos?.ok ? slos.clauses : undefined };
  try {
    const result = await runCompare(flags, process.stdout);
    process.exitCode = result.failed ? EXIT.failed : EXIT.ok;
  } catch (err) {
    if (!(err instanceof CompareError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = EXIT_COULD_NOT_COMPARE;
  }
}
