import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { closedPort } from './closed-port.ts';

const NGINX = '/usr/sbin/nginx';

/**
 * A self-signed certificate for both names the tests use (localhost, 127.0.0.1), made with openssl
 * into `dir` as key.pem and cert.pem. OpenSSL marks it CA:TRUE: it is its own root, so it works as
 * a `--ca-file` too.
 */
export function selfSignedCert(dir: string): { key: string; cert: string } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  return { key, cert };
}

export interface NginxTls {
  port: number;
  /** The access log's size now, to read what came after with `logSince`. */
  logSize(): number;
  /** The access log's lines since `from` bytes, one per request: `$connection $ssl_protocol`, then `$server_protocol` when `http2`. */
  logSince(from: number): string[];
  stop(): void;
}

/**
 * A real nginx (its own prefix, config and logs in `dir`) serving `dir`'s self-signed certificate
 * on 127.0.0.1 over TLS, with HTTP/2 offered by ALPN when `http2`. It logs each request's
 * connection serial number, so keep-alive is checked from the server's side.
 */
export async function startNginxTls(dir: string, o: { http2?: boolean } = {}): Promise<NginxTls> {
  const port = await closedPort();
  writeFileSync(join(dir, 'nginx.conf'), `
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  log_format conn '$connection $ssl_protocol${o.http2 ? ' $server_protocol' : ''}';
  access_log ${dir}/access.log conn;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port} ssl${o.http2 ? ' http2' : ''};
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    location / { return 200 "hello over tls\\n"; }
  }
}
`);
  const nginx: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
  await waitForPort(port, 10_000, () => readFileSync(join(dir, 'error.log'), 'utf8'));
  const log = () => readFileSync(join(dir, 'access.log'), 'utf8');
  return {
    port,
    logSize: () => log().length,
    logSince: (from) => log().slice(from).split('\n').filter(Boolean),
    stop: () => nginx.kill('SIGTERM'),
  };
}

async function waitForPort(p: number, deadlineMs: number, why: () => string): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(p, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nginx did not listen on ${p}: ${why()}`);
    await sleep(50);
  }
}
