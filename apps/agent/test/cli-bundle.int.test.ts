import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakeApi } from '@kneeboard/agent-sdk/testing';
import { startDemoTarget } from '@kneeboard/demo-target';
// @ts-expect-error: the launcher's helper is plain JavaScript, with no types.
import { bundleIsFresh } from '../bin/pick-entry.mjs';
import { DEFAULT_ENGINE_BINARY } from '../src/native/engine-binary.ts';
import { runCli } from './support/run-cli.ts';

const AGENT = fileURLToPath(new URL('..', import.meta.url));

describe('the bundled CLI (scripts/bundle-cli.mjs, bin/pick-entry.mjs)', () => {
  it('builds a bundle that prints the same help as the TypeScript source and finds the native engine', async () => {
    // Its own folder: the other test files' CLIs keep running dist/kneeboard.mjs meanwhile.
    const out = execFileSync(process.execPath, ['scripts/bundle-cli.mjs', `dist/test-${process.pid}`], { cwd: AGENT, encoding: 'utf8' });
    expect(out).toMatch(/bundled the kneeboard CLI: \d+ files/);
    const dir = join(AGENT, `dist/test-${process.pid}`);
    expect(bundleIsFresh(join(dir, 'kneeboard.mjs'), join(dir, 'kneeboard.inputs.json'))).toBe(true);
    const bundled = await runCli(['sweep', '--help'], 20_000, {}, undefined, join(dir, 'kneeboard.mjs')).done;
    const source = await runCli(['sweep', '--help'], 20_000, { KNEEBOARD_CLI_SOURCE: '1' }).done;
    expect(bundled.code).toBe(0);
    expect(bundled.stdout).toBe(source.stdout);
    // Bundled, the CLI still finds the native engine (its path is found from dist/ as from src/native/).
    expect(DEFAULT_ENGINE_BINARY).toBe(join(AGENT, 'engine/target/release/kneeboard-engine'));
    const fake = await FakeApi.start();
    const target = await startDemoTarget({ workers: 2, serviceMs: 1, port: 0 });
    try {
      const spool = mkdtempSync(join(tmpdir(), 'kb-bundle-spool-'));
      const sweep = await runCli(['sweep', '--target', `${target.url}/`, '--engine', 'native', '-c', '2', '-d', '300ms', '--warmup', '0s', '--service', 'bundle', '--release', 'v1', '--api', fake.url, '--spool-dir', spool, '--json'], 20_000, {}, undefined, join(dir, 'kneeboard.mjs')).done;
      expect(sweep.stderr).toContain('native engine');
      expect(sweep.code).toBe(0);
      expect((JSON.parse(sweep.stdout) as { levels: { qps: number }[] }).levels[0]!.qps).toBeGreaterThan(0);
    } finally {
      await target.close();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('calls a bundle stale when any input is newer, missing, or the list is gone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-bundle-'));
    const bundle = join(dir, 'kneeboard.mjs');
    const source = join(dir, 'cli.ts');
    const list = join(dir, 'inputs.json');
    writeFileSync(source, '');
    writeFileSync(bundle, '');
    writeFileSync(list, JSON.stringify([source]));
    utimesSync(source, new Date(1_000_000), new Date(1_000_000));
    utimesSync(bundle, new Date(2_000_000), new Date(2_000_000));
    expect(bundleIsFresh(bundle, list)).toBe(true);
    utimesSync(source, new Date(3_000_000), new Date(3_000_000));
    expect(bundleIsFresh(bundle, list)).toBe(false);
    writeFileSync(list, JSON.stringify([join(dir, 'gone.ts')]));
    expect(bundleIsFresh(bundle, list)).toBe(false);
    expect(bundleIsFresh(bundle, join(dir, 'no-list.json'))).toBe(false);
    expect(bundleIsFresh(join(dir, 'no-bundle.mjs'), list)).toBe(false);
  });
});
