import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeApi } from '@kneeboard/agent-sdk/testing';
import { DEFAULT_ENGINE_BINARY } from '../src/native/engine-binary.ts';
import { FrameReader } from '../src/native/frames.ts';
import { ENGINES } from './support/engines.ts';
import { runCli } from './support/run-cli.ts';
import { selfSignedCert, startNginxTls, type NginxTls } from './support/tls-target.ts';

/**
 * HTTPS against a real nginx (its own prefix, config and logs in a temp dir) serving a self-signed
 * certificate this test makes with openssl. nginx logs each request's connection serial number,
 * so keep-alive is checked from the server's side: connections ≈ concurrency, not one per request.
 */
const C = 4;

let dir: string;
let nginx: NginxTls;
let port: number;
let fake: FakeApi;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kb-https-'));
  selfSignedCert(dir);
  nginx = await startNginxTls(dir);
  port = nginx.port;
  fake = await FakeApi.start();
});

afterAll(async () => {
  nginx?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const spoolDir = () => mkdtempSync(join(tmpdir(), 'kb-https-spool-'));
const url = () => `https://localhost:${port}/`;
// 2 s a level: the Node engine's first TLS handshakes (with a --ca-file) took the whole of a 500 ms
// level on a busy CI box, and a level with no request says nothing about keep-alive.
const sweep = (engine: string, extra: string[]) =>
  runCli(['sweep', '--target', url(), '--service', 'tls', '--release', 'https-test', '--api', fake.url, '--spool-dir', spoolDir(), '--engine', engine,
    '-c', String(C), '--duration', '2s', '--warmup', '0', '--json', ...extra], 30_000).done;

/** The access log's lines since `from` bytes: one connection serial per request. */
const logSince = (from: number) => nginx.logSince(from);
const logSize = () => nginx.logSize();

describe.each(ENGINES)('https:// on the %s engine', (engine) => {
  it('refuses a self-signed target without --insecure or --ca-file, with the fix, before creating a run', async () => {
    const runsBefore = fake.runs.length;
    const { code, stderr } = await sweep(engine, []);
    expect(code).toBe(1);
    expect(stderr).toContain('certificate not trusted: pass --insecure or --ca-file');
    expect(fake.runs.length).toBe(runsBefore);
  });

  it.each([
    ['--insecure', () => ['--insecure']],
    ['--ca-file', () => ['--ca-file', join(dir, 'cert.pem')]],
  ])('sweeps it with %s over keep-alive connections', async (flag, extra) => {
    const from = logSize();
    const { code, stdout, stderr } = await sweep(engine, extra());
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.engine).toBe(engine);
    const [level] = json.levels;
    expect(level.requests).toBeGreaterThan(0);
    expect(level.errors).toBe(0);
    if (flag === '--insecure') expect(stderr).toContain('warning: --insecure');
    else expect(stderr).not.toContain('warning: --insecure');
    // The server's view: every request over TLS, on about C connections (+ the preflight's one).
    const lines = logSince(from);
    expect(lines.length).toBeGreaterThanOrEqual(level.requests);
    expect(lines.every((l) => /^\d+ TLSv1\.[23]$/.test(l))).toBe(true);
    const connections = new Set(lines.map((l) => l.split(' ')[0]));
    expect(connections.size).toBeLessThanOrEqual(C + 1);
    expect(lines.length).toBeGreaterThan(connections.size * 5);
    if (engine === 'native') {
      // One handshake per connection, recorded by the engine and shown under the level.
      expect(level.tls_handshakes.count).toBe(C);
      expect(level.tls_handshakes.p50_ms).toBeGreaterThan(0);
      expect(level.tls_handshakes.max_ms).toBeGreaterThanOrEqual(level.tls_handshakes.p50_ms);
      expect(stderr).toMatch(new RegExp(`level ${C}: ${C} TLS handshakes \\(p50 `));
    }
  });
});

describe('the native engine on its own', () => {
  it('fails each request as "certificate not trusted" without --insecure (the CLI preflight is bypassed here)', async () => {
    const child = spawn(DEFAULT_ENGINE_BINARY, ['--url', url(), '--load', '2', '--duration-ms', '200', '--threads', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const reader = new FrameReader();
    const kinds = new Map<string, number>();
    let names: string[] = [];
    let end: { tls: { handshakes: number } | null } | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      for (const f of reader.push(chunk)) {
        if (f.kind === 'json') {
          const v = f.value as { type: string; error_kinds?: string[]; tls?: { handshakes: number } | null };
          if (v.type === 'hello') names = v.error_kinds!;
          if (v.type === 'end') end = { tls: v.tls ?? null };
        } else {
          for (const k of f.errorKind) kinds.set(k === 0 ? 'ok' : names[k - 1]!, (kinds.get(k === 0 ? 'ok' : names[k - 1]!) ?? 0) + 1);
        }
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect([...kinds.keys()]).toEqual(['certificate not trusted']);
    expect(end!.tls).toMatchObject({ handshakes: 0 });
  });
});
