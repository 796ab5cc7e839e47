/**
 * Load generators run side by side for the throughput bench: each one pinned to a core with
 * taskset, its whole process tree's CPU time (bash `times`) and peak RSS (sampled from /proc) taken,
 * and its own numbers parsed from its output.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { DEFAULT_ENGINE_BINARY, FrameReader } from '@kneeboard/agent';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantile } from './report.ts';
import { KNEEBOARD, parseAutocannon, parseOha, parseWrk, type KneeboardLevel } from '../agent-bench-lib.ts';

/**
 * Target and generators run at real-time (round-robin) priority when the bench may (root): on a
 * 2-core machine shared with other jobs, pinned processes otherwise wait behind them — measured
 * here: wrk pinned against pinned nginx, 5–7k req/s at normal priority (nice -10 no better),
 * 53–68k at real-time. Every tool gets the same; the kernel still leaves other jobs 5 % of each core.
 */
export const PRIORITY = process.getuid?.() === 0 ? 'chrt -r 10' : '';

export interface ToolResult {
  qps: number;
  p50: number;
  p99: number;
  /** CPU of the tool's processes ÷ wall time (kneeboard: over its measurement window). */
  cpuCores: number;
  rssMiB: number;
  /** Kneeboard's own verdict on the step, when it has one. */
  limited?: string;
}

/** RSS of a process and all its descendants, MiB (0 once gone). */
export function treeRssMiB(pid: number): number {
  let kib = 0;
  const visit = (p: number) => {
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) kib += Number(m[1]);
      for (const task of readdirSync(`/proc/${p}/task`)) {
        const children = readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        for (const c of children ? children.split(' ') : []) visit(Number(c));
      }
    } catch (err) {
      // The process ended between two reads: it holds no memory any more.
      if (!['ENOENT', 'ESRCH'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  };
  visit(pid);
  return kib / 1024;
}

/**
 * Runs `cmd args` pinned to `core` under bash (open-file limit raised for 10,000 connections),
 * samples the tree's RSS every 50 ms, and takes its CPU from `times` (children, reaped).
 */
export function runPinned(core: number | string, cmd: string, args: string[], timeoutMs = 180_000): Promise<{ stdout: string; stderr: string; cpuS: number; rssMiB: number; code: number | null }> {
  const quoted = [cmd, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const errFile = join(mkdtempSync(join(tmpdir(), 'kb-bench-')), 'stderr');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `ulimit -n 20000 2>/dev/null; ${PRIORITY} taskset -c ${core} ${quoted} 2>"${errFile}"; code=$?; times >&2; exit $code`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let times = '';
    let peak = 0;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (times += d.toString()));
    const sampler = setInterval(() => (peak = Math.max(peak, treeRssMiB(child.pid!))), 50);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(sampler);
      const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s\s*$/.exec(times.trim());
      const cpuS = m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) : Number.NaN;
      resolve({ stdout, stderr: existsSync(errFile) ? readFileSync(errFile, 'utf8') : '', cpuS, rssMiB: peak, code });
    });
  });
}

export function which(tool: string): string | null {
  const r = spawnSync('bash', ['-c', `PATH="$HOME/.cargo/bin:$PATH" command -v ${tool}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

export async function wrk(core: number, url: string, c: number, seconds: number): Promise<ToolResult> {
  const r = await runPinned(core, 'wrk', ['-t1', `-c${c}`, `-d${seconds}s`, '--timeout', '10s', '--latency', url]);
  if (r.code !== 0) throw new Error(`wrk exited ${r.code}: ${r.stderr}`);
  const p = parseWrk(r.stdout);
  return { qps: p.qps, p50: p.p50, p99: p.p99, cpuCores: r.cpuS / seconds, rssMiB: r.rssMiB };
}

export async function oha(bin: string, core: number, url: string, c: number, seconds: number): Promise<ToolResult> {
  const r = await runPinned(core, bin, ['-c', String(c), '-z', `${seconds}s`, '--no-tui', '--output-format', 'json', url]);
  if (r.code !== 0) throw new Error(`oha exited ${r.code}: ${r.stderr}`);
  const p = parseOha(r.stdout);
  return { qps: p.qps, p50: p.p50, p99: p.p99, cpuCores: r.cpuS / seconds, rssMiB: r.rssMiB };
}

export async function autocannon(bin: string, core: number, url: string, c: number, seconds: number): Promise<ToolResult> {
  const r = await runPinned(core, bin, ['-c', String(c), '-d', String(seconds), '--json', url]);
  if (r.code !== 0) throw new Error(`autocannon exited ${r.code}: ${r.stderr}`);
  const p = parseAutocannon(r.stdout);
  return { qps: p.qps, p50: p.p50, p99: p.p99, cpuCores: r.cpuS / seconds, rssMiB: r.rssMiB };
}

/** k6 with c VUs, each looping one GET (constant-VUs: a closed loop, as the others). */
export async function k6(bin: string, core: number, url: string, c: number, seconds: number): Promise<ToolResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kb-k6-'));
  writeFileSync(join(dir, 'get.js'), "import http from 'k6/http';\nexport default function () { http.get(__ENV.URL); }\n");
  const out = join(dir, 'summary.json');
  const args = ['run', '--quiet', '--no-color', '--vus', String(c), '--duration', `${seconds}s`, '--summary-trend-stats', 'med,p(99)', '--summary-export', out, '-e', `URL=${url}`, join(dir, 'get.js')];
  const r = await runPinned(core, bin, args);
  if (r.code !== 0) throw new Error(`k6 exited ${r.code}: ${r.stderr.slice(-500)}`);
  const m = (JSON.parse(readFileSync(out, 'utf8')) as { metrics: Record<string, Record<string, number>> }).metrics;
  return { qps: m.http_reqs!.rate!, p50: m.http_req_duration!.med!, p99: m.http_req_duration!['p(99)']!, cpuCores: r.cpuS / seconds, rssMiB: r.rssMiB };
}

/** The kneeboard CLI for one level, --json, on the given engine; numbers from its own table. `cli`: another build of it (a before/after). */
export async function kneeboard(engine: 'native' | 'node', core: number, url: string, c: number, seconds: number, api: string, extra: string[] = [], cli = KNEEBOARD): Promise<ToolResult> {
  const spool = mkdtempSync(join(tmpdir(), 'kb-bench-spool-'));
  const args = [cli, 'sweep', '--target', url, '-c', String(c), '-d', `${seconds}s`, '--warmup', '1s', '--engine', engine];
  if (engine === 'native') args.push('--threads', '1');
  args.push(...extra, '--service', 'bench', '--release', 'throughput', '--api', api, '--spool-dir', spool, '--json');
  const r = await runPinned(core, process.execPath, args);
  if (r.code !== 0) throw new Error(`kneeboard exited ${r.code}: ${r.stdout}\n${r.stderr}`);
  const l = (JSON.parse(r.stdout) as { levels: KneeboardLevel[] }).levels[0]!;
  return {
    qps: l.qps,
    p50: l.p50_ms ?? Number.NaN,
    p99: l.p99_ms ?? Number.NaN,
    cpuCores: l.health.agent_cpu_cores ?? Number.NaN,
    rssMiB: r.rssMiB,
    limited: l.health.generator_limited ? (l.health.reason ?? 'yes') : 'no',
  };
}

export interface NginxOptions {
  workers?: number;
  /** Serve HTTPS on a self-signed certificate made here (ECDSA P-256, as most public sites serve). */
  tls?: boolean;
  /** With tls: HTTP/2 as well, by ALPN (nginx 1.22's `listen … ssl http2`; `http2 on` from 1.25.1). */
  http2?: boolean;
}

/** nginx pinned to `core` (one worker unless told), answering "ok" on keep-alive connections; no daemon, a temp prefix. */
export async function startNginx(core: number | string, port: number, options: NginxOptions = {}): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const { workers = 1, tls = false, http2 = false } = options;
  const dir = mkdtempSync(join(tmpdir(), 'kb-nginx-'));
  if (tls) {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  }
  const listen = tls ? `listen 127.0.0.1:${port} ssl${http2 ? ' http2' : ''} backlog=16384;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;` : `listen 127.0.0.1:${port} backlog=16384;`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes ${workers};
daemon off;
master_process ${workers > 1 ? 'on' : 'off'};
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 20000; }
http {
  access_log off;
  keepalive_requests 10000000;
  keepalive_timeout 300s;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    ${listen}
    location / { return 200 "ok\\n"; }
  }
}
`,
  );
  const child = spawn('bash', ['-c', `ulimit -n 20000 2>/dev/null; exec ${PRIORITY} taskset -c ${core} nginx -p '${dir}' -c '${dir}/nginx.conf'`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${err}`);
    // curl -k: the certificate is self-signed, which fetch would refuse.
    if (spawnSync('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', url], { encoding: 'utf8' }).stdout === '200') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The native engine binary alone (one thread, closed loop at `c`) pinned to `core`, without the
 * kneeboard CLI: its frames are read by this bench process (not pinned), and the requests that
 * completed inside the window after the warm-up, ÷ its length, give the rate.
 */
export function engineAlone(core: number, url: string, c: number, seconds: number, warmupMs = 1_000, extra: string[] = []): Promise<ToolResult> {
  const args = ['--url', url, '--mode', 'closed', '--load', String(c), '--threads', '1', '--warmup-ms', String(warmupMs), '--duration-ms', String(seconds * 1000), ...extra];
  if (url.startsWith('https:')) args.push('--insecure');
  const child = spawn('bash', ['-c', `${PRIORITY} taskset -c ${core} "$0" "$@"`, DEFAULT_ENGINE_BINARY, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const reader = new FrameReader();
  const latencies: number[] = [];
  const windowTo = warmupMs + seconds * 1000;
  child.stdout.on('data', (d: Buffer) => {
    for (const f of reader.push(d)) {
      if (f.kind !== 'events') continue;
      for (let i = 0; i < f.length; i++) {
        const ended = f.ended[i]!;
        if (f.errorKind[i] === 0 && ended >= warmupMs && ended <= windowTo) latencies.push(ended - f.intended[i]!);
      }
    }
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve({ qps: latencies.length / seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), cpuCores: Number.NaN, rssMiB: Number.NaN })
        : reject(new Error(`engine exited ${code}`)),
    );
  });
}
