import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListRunsResponse, RunDetail } from '@kneeboard/contracts';
import { startServerProcess, type ServerProcess } from '@kneeboard/api/testing';
import { runCli } from './support/run-cli.ts';

/**
 * The connections each level opened, and over TLS their handshake times, as the API stores them:
 * a sweep of two closed-loop levels against loopback servers (https with a self-signed certificate
 * made here with openssl, and plain http) that keep every connection alive, so each level opens
 * exactly one connection per unit of concurrency.
 */
const LEVELS = [2, 3];
const dir = mkdtempSync(join(tmpdir(), 'kb-tls-conn-'));
let api: ServerProcess;
let https: Server;
let http: Server;
let httpsPort: string;
let httpPort: string;

const listen = async (server: Server): Promise<string> => {
  // Never closed by the server during the test: a reconnect would be a second handshake.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return String((server.address() as AddressInfo).port);
};
const hello = (_req: unknown, res: { end(body: string): void }) => res.end('hello\n');

beforeAll(async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  https = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, hello);
  http = createHttpServer(hello);
  [httpsPort, httpPort] = await Promise.all([listen(https), listen(http)]);
  api = await startServerProcess({ KNEEBOARD_DATA_DIR: join(dir, 'data') }, 120_000);
}, 150_000);
afterAll(async () => {
  await api?.stop();
  https?.close();
  http?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The run as stored, and the CLI's own per-level TLS handshakes (--json) — the count is not stored, only opened. */
async function sweep(target: string, engine: string, service: string): Promise<{ detail: RunDetail; handshakes: unknown[] }> {
  const { code, stdout, stderr } = await runCli(
    ['sweep', '--target', target, '--levels', LEVELS.join(','), '--duration', '500ms', '--warmup', '0', '--insecure', '--engine', engine,
      '--service', service, '--release', 'conn-test', '--api', api.url, '--spool-dir', join(dir, `spool-${service}`), '--json'],
    60_000,
  ).done;
  expect(code, stderr).toBe(0);
  const { runs } = ListRunsResponse.parse(await (await fetch(`${api.url}/api/v1/runs?service=${service}`)).json());
  expect(runs).toHaveLength(1);
  const detail = RunDetail.parse(await (await fetch(`${api.url}/api/v1/runs/${runs[0]!.id}`)).json());
  return { detail, handshakes: (JSON.parse(stdout) as { levels: { tls_handshakes?: unknown }[] }).levels.map((l) => l.tls_handshakes ?? null) };
}

describe.each(['native', 'node'])('https:// on the %s engine', (engine) => {
  it('stores, per level, the connections opened and their TLS handshake p50/p99/max — one handshake per connection', async () => {
    const { detail, handshakes } = await sweep(`https://localhost:${httpsPort}/`, engine, `conn-tls-${engine}`);
    expect(detail.steps.map((s) => s.level)).toEqual(LEVELS);
    expect(handshakes.map((h) => (h as { count: number } | null)?.count)).toEqual(LEVELS);
    for (const s of detail.steps) {
      const c = s.connections!;
      expect(c.opened, `level ${s.level}`).toBe(s.level);
      expect(c.handshake_p50_ms).toBeGreaterThan(0);
      expect(c.handshake_p99_ms).toBeGreaterThanOrEqual(c.handshake_p50_ms!);
      expect(c.handshake_max_ms).toBeGreaterThanOrEqual(c.handshake_p99_ms!);
    }
  }, 90_000);
});

describe('plain HTTP: connections counted, no handshake', () => {
  it.each(['native', 'node'])('the %s engine stores the connections each level opened, handshakes null', async (engine) => {
    const { detail, handshakes } = await sweep(`http://127.0.0.1:${httpPort}/`, engine, `conn-http-${engine}`);
    expect(detail.steps.map((s) => [s.level, s.connections])).toEqual(
      LEVELS.map((level) => [level, { opened: level, handshake_p50_ms: null, handshake_p99_ms: null, handshake_max_ms: null }]),
    );
    expect(handshakes).toEqual(LEVELS.map(() => null));
  }, 90_000);
});
