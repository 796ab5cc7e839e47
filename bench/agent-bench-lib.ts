/**
 * Helpers for the agent benchmarks: processes with their CPU time, a do-nothing Kneeboard API
 * sink (so the agent's own upload work is measured, not the API's), and parsers for wrk, oha and
 * autocannon output.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KNEEBOARD = fileURLToPath(new URL('../apps/agent/bin/kneeboard.mjs', import.meta.url));
const DEMO_MAIN = fileURLToPath(new URL('../apps/demo-target/src/main.ts', import.meta.url));
const AUTOCANNON = fileURLToPath(new URL('./node_modules/.bin/autocannon', import.meta.url));
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** Runs the `kneeboard` CLI to its end and keeps what it printed. */
export function kneeboardCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KNEEBOARD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** utime + stime of a live process, ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

export function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

export function which(tool: string): string | null {
  for (const p of [`/usr/bin/${tool}`, `/usr/local/bin/${tool}`, join(homedir(), '.cargo/bin', tool)]) if (existsSync(p)) return p;
  return null;
}

export const AUTOCANNON_BIN = existsSync(AUTOCANNON) ? AUTOCANNON : null;

/** Runs a command to completion; returns its output and the CPU its process tree used (bash's `times`). */
export function runTimed(cmd: string, args: string[], timeoutMs = 120_000): Promise<{ stdout: string; stderr: string; cpuS: number; code: number | null }> {
  const quoted = [cmd, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `ulimit -n 20000 2>/dev/null; ${quoted} 2>"$KB_ERR"; code=$?; times >&2; exit $code`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KB_ERR: join(mkdtempSync(join(tmpdir(), 'kb-bench-')), 'stderr') },
    });
    let stdout = '';
    let times = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (times += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // `times`: the shell's user/sys, then its children's. We want the children's.
      const lines = times.trim().split('\n');
      const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(lines.at(-1) ?? '');
      const cpuS = m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) : Number.NaN;
      resolve({ stdout, stderr: times, cpuS, code });
    });
  });
}

export interface Proc {
  url: string;
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

function startProcess(cmd: string, args: string[], ready: RegExp): Promise<Proc> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          child,
          pid: child.pid!,
          stop: () =>
            new Promise<void>((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** The smallest HTTP server Node has: "ok" for every request, in its own process. */
export function startTrivialTarget(): Promise<Proc> {
  const code = `const s=require('http').createServer((q,r)=>r.end('ok'));s.keepAliveTimeout=60000;s.listen(0,'127.0.0.1',()=>console.log('listening on http://127.0.0.1:'+s.address().port))`;
  return startProcess(process.execPath, ['-e', code], /listening on (http:\/\/\S+)/);
}

export function startDemoTarget(args: string[]): Promise<Proc> {
  return startProcess('bash', ['-c', `ulimit -n 20000 2>/dev/null; exec '${process.execPath}' --import tsx '${DEMO_MAIN}' --port 0 ${args.join(' ')}`], /listening on (http:\/\/\S+)/);
}

/** Accepts every Kneeboard API call and parses nothing: the benchmark measures the agent, not the API. */
export async function startSink(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // Arrow batches carry their id in the query string: match on the path alone.
      const path = (req.url ?? '').split('?')[0]!;
      res.setHeader('content-type', 'application/json');
      if (path === '/healthz') return res.end('{"ok":true}');
      if (path === '/api/v1/runs') {
        res.statusCode = 201;
        return res.end(JSON.stringify({ id: randomUUID() }));
      }
      if (path.endsWith('/events')) return res.end('{"accepted":0,"duplicate":false}');
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

export interface KneeboardLevel {
  level: number;
  qps: number;
  p50_ms: number | null;
  p99_ms: number | null;
  p999_ms: number | null;
  sent_per_s: number | null;
  in_flight: number | null;
  health: { in_flight_mean: number | null; agent_cpu_cores: number | null; event_loop_delay_p99_ms: number | null; generator_limited: boolean; reason: string | null; late_sends: number; missed_sends: number };
}

/** The kneeboard CLI, --json; returns the per-level table and the process's own CPU time. */
export async function runKneeboard(args: string[], api: string): Promise<{ levels: KneeboardLevel[]; cpuS: number }> {
  const spool = mkdtempSync(join(tmpdir(), 'kb-bench-spool-'));
  const r = await runTimed(process.execPath, [KNEEBOARD, 'sweep', ...args, '--service', 'bench', '--release', 'agent', '--api', api, '--spool-dir', spool, '--json']);
  if (r.code !== 0) throw new Error(`kneeboard exited ${r.code}: ${r.stdout}\n${r.stderr}`);
  return { levels: (JSON.parse(r.stdout) as { levels: KneeboardLevel[] }).levels, cpuS: r.cpuS };
}

const UNIT: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };
/** wrk's summary: requests/s and (with --latency) the 50/99% latencies in ms. */
export function parseWrk(out: string): { qps: number; p50: number; p99: number } {
  const qps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const pct = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? Number(m[1]) * UNIT[m[2]!]! : Number.NaN;
  };
  return { qps, p50: pct('50'), p99: pct('99') };
}

export function parseOha(out: string): { qps: number; p50: number; p99: number; p999: number } {
  const j = JSON.parse(out) as { summary: { requestsPerSec: number }; latencyPercentiles: Record<string, number> };
  const ms = (k: string) => (j.latencyPercentiles[k] ?? Number.NaN) * 1000;
  return { qps: j.summary.requestsPerSec, p50: ms('p50'), p99: ms('p99'), p999: ms('p99.9') };
}

export function parseAutocannon(out: string): { qps: number; p50: number; p99: number } {
  const j = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number } };
  return { qps: j.requests.average, p50: j.latency.p50, p99: j.latency.p99 };
}
