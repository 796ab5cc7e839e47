import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigXml, type ClusterLayout } from './config-xml.ts';
import { freePorts } from './free-port.ts';
import { libchdbPath } from './lib-path.ts';

const SERVE_PY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serve.py');
/** The listener query sleeps one second per row: this many rows is "until stopped" (~11 days). */
const LIFETIME_SECONDS = 1_000_000;

export interface ServerOptions {
  /** Data directory; a fresh temporary one (removed on stop) when omitted. */
  dataDir?: string;
  httpPort?: number;
  tcpPort?: number;
  /** Written into the config so this node sees the whole cluster. */
  cluster?: ClusterLayout;
  /** Keep system.query_log and system.part_log (for benches that profile the server). */
  queryLog?: boolean;
  /** How long to wait for /ping to answer. */
  startTimeoutMs?: number;
}

export interface ClickHouseServer {
  /** HTTP interface, e.g. http://127.0.0.1:41234 — what CLICKHOUSE_URL takes. */
  readonly url: string;
  readonly httpPort: number;
  readonly tcpPort: number;
  readonly dataDir: string;
  /** Stops the process (SIGKILL: an outage, not a shutdown); the data directory stays. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data, after kill(). */
  restart(): Promise<void>;
  /** Stops the process and removes a temporary data directory. */
  stop(): Promise<void>;
}

async function waitForPing(url: string, child: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`ClickHouse server exited during start-up:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      const res = await fetch(`${url}/ping`);
      if (res.ok) return;
    } catch {
      // Not listening yet: the listeners start once the engine has loaded.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`ClickHouse server at ${url} did not answer /ping within ${timeoutMs} ms; log: ${logFile}`);
}

function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/**
 * Starts ClickHouse's real server (HTTP and native TCP on 127.0.0.1) from libchdb.so and resolves
 * once it answers /ping. Unauthenticated (user `default`, no password): loopback only.
 */
export async function startClickHouseServer(options: ServerOptions = {}): Promise<ClickHouseServer> {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'kb-clickhouse-'));
  mkdirSync(dataDir, { recursive: true });
  const [spareHttp, spareTcp] = options.httpPort && options.tcpPort ? [] : await freePorts(2);
  const httpPort = options.httpPort ?? spareHttp!;
  const tcpPort = options.tcpPort ?? spareTcp!;
  const configFile = path.join(dataDir, 'kneeboard-server.xml');
  writeFileSync(configFile, renderConfigXml(options.cluster, { queryLog: options.queryLog }));
  const logFile = path.join(dataDir, 'server.log');
  const url = `http://127.0.0.1:${httpPort}`;
  const args = [
    SERVE_PY,
    libchdbPath(),
    `--config-file=${configFile}`,
    '--listen_host=127.0.0.1',
    `--http_port=${httpPort}`,
    `--tcp_port=${tcpPort}`,
    `--path=${path.join(dataDir, 'data')}/`,
    '--multiquery',
    `--query=SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP; SELECT sum(sleepEachRow(1)) FROM numbers(${LIFETIME_SECONDS}) SETTINGS max_block_size = 1`,
  ];

  let child: ChildProcess;
  const launch = async () => {
    const log = createWriteStream(logFile, { flags: 'a' });
    child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    await waitForPing(url, child, logFile, options.startTimeoutMs ?? 60_000);
  };
  const kill = async () => {
    child.kill('SIGKILL');
    await exitOf(child);
  };
  try {
    await launch();
  } catch (err) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    httpPort,
    tcpPort,
    dataDir,
    kill,
    restart: launch,
    async stop() {
      await kill();
      if (temporary) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
