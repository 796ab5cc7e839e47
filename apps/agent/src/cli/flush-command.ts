import { resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_API_URL } from '@kneeboard/contracts';
import { DEFAULT_SPOOL_DIR, KneeboardApi, replaySpool } from '@kneeboard/agent-sdk';
import { checkApi } from '../sweep/preflight.ts';
import { SweepError } from '../sweep/sweep-error.ts';
import { EXIT } from './exit-codes.ts';
import { tokenOption } from './token-option.ts';

export function flushCommand(): Command {
  return new Command('flush')
    .description('re-send what earlier agents left in the spool (the API was down or slow), in order, without duplicates')
    .option('--spool-dir <dir>', 'the spool directory the sweeps used', DEFAULT_SPOOL_DIR)
    .option('--api <url>', 'Kneeboard API', DEFAULT_API_URL)
    .addOption(tokenOption())
    .action(flush);
}

async function flush(flags: { spoolDir: string; api: string; token?: string }): Promise<void> {
  const api = new KneeboardApi({ baseUrl: flags.api, token: flags.token });
  const dir = resolve(flags.spoolDir);
  try {
    await checkApi(api);
    const r = await replaySpool({ api, spoolDir: dir, onProgress: (m) => process.stderr.write(`  ${m}\n`) });
    process.stdout.write(
      `flushed ${dir}: ${r.runs} runs, ${r.delivered} calls delivered (${r.events} new events, ${r.duplicateBatches} batches the API already had)` +
        `${r.rejected > 0 ? `, ${r.rejected} refused (kept in ${dir}/rejected)` : ''}${r.remaining > 0 ? `, ${r.remaining} still waiting` : ''}` +
        `${r.skipped > 0 ? `, ${r.skipped} runs skipped (their agent is still running)` : ''}\n`,
    );
    process.exitCode = r.remaining > 0 || r.rejected > 0 ? EXIT.failed : EXIT.ok;
  } catch (err) {
    if (!(err instanceof SweepError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = EXIT.failed;
  } finally {
    await api.close();
  }
}
