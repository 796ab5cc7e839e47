import { Command, CommanderError } from 'commander';
import { agentCommand } from './cli/agent-command.ts';
import { EXIT } from './cli/exit-codes.ts';
import { compareCommand } from './cli/compare-command.ts';
import { flushCommand } from './cli/flush-command.ts';
import { importCommand } from './cli/import-command.ts';
import { sweepCommand } from './cli/sweep-command.ts';
import { tokenCommand } from './cli/token-command.ts';

const program = new Command('kneeboard')
  .description('Sweep a service through load levels and stream every request to Kneeboard.')
  .showHelpAfterError('(run with --help for usage)')
  // Throw instead of exiting, so every usage error leaves with code 2 (commander would use 1).
  .exitOverride();

for (const command of [sweepCommand(), agentCommand(), flushCommand(), compareCommand(), importCommand(), tokenCommand()]) {
  program.addCommand(command.showHelpAfterError('(run with --help for usage)').exitOverride());
}

try {
  await program.parseAsync();
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  // commander has already printed the message; help and --version are not errors.
  process.exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? EXIT.ok : EXIT.usage;
}
