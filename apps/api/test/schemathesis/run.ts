/**
 * Property-based fuzzing of the API's OpenAPI document with schemathesis (PyPI), against the real
 * API on 127.0.0.1 with embedded ClickHouse (every check on, as configured in schemathesis.toml): once open (the loopback default), once with tokens
 * required and an admin token given. Bounded: a pinned schemathesis, a fixed seed, few examples per
 * operation and a hard time limit per pass. Fails on any failure schemathesis reports (a response
 * ≥ 500, an undocumented status, a body or header that breaks the document, …).
 *
 *   pnpm --filter @kneeboard/api test:schemathesis      (SCHEMATHESIS_MAX_EXAMPLES, _SEED to change)
 *
 * The summary goes to stdout and to test-results/schemathesis/summary.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from '../../testing/spawn.ts';

const VERSION = '4.32.5';
const HERE = fileURLToPath(new URL('.', import.meta.url));
const OUT = join(HERE, '../../test-results/schemathesis');
const VENV = process.env.KNEEBOARD_SCHEMATHESIS_VENV ?? join(homedir(), '.cache', 'kneeboard', `schemathesis-${VERSION}`);
const ST = join(VENV, 'bin', 'schemathesis');
const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 10);
const SEED = Number(process.env.SCHEMATHESIS_SEED ?? 1);
/** Per pass; a pass that does not finish in time fails (it used to hang on /live). */
const PASS_TIMEOUT_S = Number(process.env.SCHEMATHESIS_TIMEOUT_S ?? 600);
/** pip on a loaded 2-core box can take minutes; a stuck download still ends. */
const INSTALL_TIMEOUT_MS = Number(process.env.SCHEMATHESIS_INSTALL_TIMEOUT_S ?? 900) * 1000;
/** Written after pip succeeded: a venv left half-installed by a timeout is rebuilt, not used. */
const MARKER = join(VENV, '.kneeboard-installed');
const ADMIN_TOKEN = 'kb-schemathesis-admin-token-0123456789';

function install(): void {
  if (existsSync(MARKER)) return;
  rmSync(VENV, { recursive: true, force: true });
  console.log(`installing schemathesis ${VERSION} into ${VENV} …`);
  for (const [cmd, args] of [
    ['python3', ['-m', 'venv', VENV]],
    [join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${VERSION}`]],
  ] as const) {
    const r = spawnSync(cmd, args, { stdio: 'inherit', timeout: INSTALL_TIMEOUT_MS });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}); is python3 (with venv) installed?`);
  }
  writeFileSync(MARKER, `${VERSION}\n`);
}

interface PassResult {
  pass: string;
  exit: number | null;
  timedOut: boolean;
  cases: number;
  failures: number;
  serverErrors: number;
  seconds: number;
}

/** "Test cases:\n  1544 generated, 15 found 16 unique failures" → numbers. */
function parseSummary(text: string): { cases: number; failures: number } {
  const cases = /(\d+) generated/.exec(text);
  const failures = /(\d+) unique failures?/.exec(text);
  return { cases: cases ? Number(cases[1]) : 0, failures: failures ? Number(failures[1]) : 0 };
}

async function runPass(pass: string, env: Record<string, string>, headers: string[]): Promise<PassResult> {
  const dataDir = mkdtempSync(join(tmpdir(), `kb-schemathesis-${pass}-`));
  // The rate limit is for a team's clients; the fuzzer is one client sending thousands of requests.
  const api = await startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_RATE_LIMIT_PER_MIN: '0', ...env }, 60_000);
  const started = Date.now();
  try {
    const junit = join(OUT, `${pass}.junit.xml`);
    const args = [
      '--no-color',
      '--config-file', join(HERE, 'schemathesis.toml'),
      'run', `${api.url}/openapi.json`,
      '--phases', 'examples,coverage,fuzzing,stateful',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', String(SEED),
      '--generation-deterministic',
      '--request-timeout', '20',
      '--max-time', String(Math.floor(PASS_TIMEOUT_S * 0.8)),
      '--report', 'junit', '--report-junit-path', junit,
      ...headers.flatMap((h) => ['--header', h]),
    ];
    // Run in the (ignored) results directory: schemathesis keeps a .schemathesis cache in its working directory.
    const child = spawn(ST, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: OUT });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
      process.stderr.write(d);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, PASS_TIMEOUT_S * 1000);
    const exit = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    clearTimeout(timer);
    writeFileSync(join(OUT, `${pass}.log`), output);
    // The API's own log, for a 500 or a crash ("server stopped responding").
    writeFileSync(join(OUT, `${pass}.api.log`), api.output());
    const { cases, failures } = parseSummary(output);
    const serverErrors = (api.output().match(/"level":50/g) ?? []).length;
    return { pass, exit, timedOut, cases, failures, serverErrors, seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  install();
  mkdirSync(OUT, { recursive: true });
  const results = [
    await runPass('open', {}, []),
    await runPass('auth', { KNEEBOARD_AUTH: 'required', KNEEBOARD_ADMIN_TOKEN: ADMIN_TOKEN }, [`Authorization: Bearer ${ADMIN_TOKEN}`]),
  ];
  const summary = { schemathesis: VERSION, seed: SEED, max_examples: MAX_EXAMPLES, results };
  writeFileSync(join(OUT, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log('\npass   cases  failures  5xx-logged  seconds  exit');
  for (const r of results) console.log(`${r.pass.padEnd(6)} ${String(r.cases).padStart(5)}  ${String(r.failures).padStart(8)}  ${String(r.serverErrors).padStart(10)}  ${String(r.seconds).padStart(7)}  ${r.timedOut ? 'timed out' : r.exit}`);
  const bad = results.filter((r) => r.exit !== 0 || r.timedOut || r.failures > 0 || r.serverErrors > 0 || r.cases === 0);
  if (bad.length > 0) {
    console.error(`schemathesis: ${bad.map((r) => r.pass).join(', ')} failed; logs in ${OUT}`);
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
