import { mkdtempSync, rmSync } from 'node:fs';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ListDeliveriesResponse, ListWebhooksResponse, WebhookDelivery, WebhookInfo } from '@kneeboard/contracts';
import type { Resolve } from '../src/services/webhooks/webhook-allow.ts';
import { startServerProcess } from '../testing/index.ts';
import { postJson, startTestApi, type TestApi } from './helpers.ts';

/**
 * KNEEBOARD_WEBHOOK_ALLOW against real receivers on 127.0.0.1: what a write token could otherwise
 * use to make the API post to its own neighbours (127.0.0.1:6379, 169.254.169.254, ClickHouse's
 * port) and read back whether they answered.
 */

interface Receiver {
  url: string;
  port: number;
  paths: string[];
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 that logs each request's path and answers `status` (with `location` on a redirect). */
async function startReceiver(status = 200, location?: string): Promise<Receiver> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      paths.push(req.url ?? '');
      res.writeHead(status, location ? { location } : {}).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, paths, close: () => new Promise((r) => server.close(() => r())) };
}

/** Names for the test: `rebound.test` resolves to loopback (a name that was public when added, rebound since). */
const RESOLVE: Resolve = (hostname, _options, callback) => {
  const table: Record<string, string[]> = { 'rebound.test': ['127.0.0.1'], 'mixed.test': ['93.184.216.34', '127.0.0.1'] };
  const addresses = table[hostname];
  if (!addresses) return callback(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }), []);
  callback(null, addresses.map((address): LookupAddress => ({ address, family: 4 })));
};

const HOOKS = '/api/v1/services/guarded/webhooks';

async function addHook(api: TestApi, url: string) {
  return postJson(`${api.url}${HOOKS}`, { url, events: ['regression'] });
}
const listed = async (api: TestApi) => ListWebhooksResponse.parse(await (await fetch(`${api.url}${HOOKS}`)).json()).webhooks;
const sendTest = async (api: TestApi, id: string) => {
  const res = await postJson(`${api.url}${HOOKS}/${id}/test`, {});
  expect(res.status).toBe(200);
  return WebhookDelivery.parse(res.body);
};

describe('webhooks by default (KNEEBOARD_WEBHOOK_ALLOW unset: public only)', () => {
  let api: TestApi;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    api = await startTestApi({ webhooks: { retryBaseMs: 20, resolve: RESOLVE } });
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  it('refuses loopback, link-local, private and mapped addresses with a 400 naming url and the variable, storing nothing', async () => {
    for (const url of [
      `${receiver.url}/hook`,
      `http://localhost:${receiver.port}/hook`,
      `http://[::1]:${receiver.port}/hook`,
      `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
      `http://2130706433:${receiver.port}/hook`,
      `http://0.0.0.0:${receiver.port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://100.64.0.1/',
    ]) {
      const res = await addHook(api, url);
      expect(res.status, url).toBe(400);
      const body = ApiError.parse(res.body);
      expect(body.field, url).toBe('url');
      expect(body.message, url).toContain('KNEEBOARD_WEBHOOK_ALLOW');
    }
    expect(await listed(api)).toEqual([]);
    expect(receiver.paths).toEqual([]);
  });

  it('a name that resolves to loopback when sent is refused then: logged as refused with no status or duration, nothing reaches the receiver', async () => {
    for (const name of ['rebound.test', 'mixed.test']) {
      const created = await addHook(api, `http://${name}:${receiver.port}/${name}`);
      expect(created.status, name).toBe(201);
      const hook = WebhookInfo.parse(created.body);
      const delivery = await sendTest(api, hook.id);
      expect(delivery, name).toMatchObject({ ok: false, status: null, duration_ms: 0, attempt: 1 });
      expect(delivery.error).toBe('refused: the address is not one KNEEBOARD_WEBHOOK_ALLOW allows (nothing was sent)');
      const log = ListDeliveriesResponse.parse(await (await fetch(`${api.url}${HOOKS}/${hook.id}/deliveries`)).json()).deliveries;
      expect(log.map((d) => [d.attempt, d.status, d.ok, d.error])).toEqual([[1, null, false, delivery.error]]);
    }
    expect(receiver.paths).toEqual([]);
  });
});

describe('webhooks with KNEEBOARD_WEBHOOK_ALLOW=loopback', () => {
  let api: TestApi;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    api = await startTestApi({ webhooks: { allow: ['loopback'], resolve: RESOLVE } });
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  it('posts to 127.0.0.1 and to a name resolving there; still refuses private and link-local addresses', async () => {
    const direct = await addHook(api, `${receiver.url}/direct`);
    expect(direct.status).toBe(201);
    expect(await sendTest(api, WebhookInfo.parse(direct.body).id)).toMatchObject({ ok: true, status: 200 });
    const named = await addHook(api, `http://rebound.test:${receiver.port}/named`);
    expect(named.status).toBe(201);
    expect(await sendTest(api, WebhookInfo.parse(named.body).id)).toMatchObject({ ok: true, status: 200 });
    expect(receiver.paths).toEqual(['/direct', '/named']);
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/']) {
      const res = await addHook(api, url);
      expect(res.status, url).toBe(400);
      expect(ApiError.parse(res.body).field).toBe('url');
    }
    // A public address is not open either: the list, set, replaces the default.
    const res = await addHook(api, 'https://8.8.8.8/services/T/B/X');
    expect(ApiError.parse(res.body)).toMatchObject({ statusCode: 400, field: 'url' });
  });
});

describe('a redirect is not followed', () => {
  let api: TestApi;
  let inner: Receiver;
  let outer: Receiver;
  beforeAll(async () => {
    inner = await startReceiver();
    // Only rebound.test on the outer receiver's port is allowed; it redirects to another loopback port.
    outer = await startReceiver(302, `${inner.url}/inner`);
    api = await startTestApi({ webhooks: { allow: [`rebound.test:${outer.port}`], resolve: RESOLVE } });
  });
  afterAll(async () => {
    await api.close();
    await inner.close();
    await outer.close();
  });

  it('the named host is posted to (whatever it resolves to); its redirect is logged as a failure, not followed', async () => {
    expect((await addHook(api, `${inner.url}/inner`)).status).toBe(400);
    const created = await addHook(api, `http://rebound.test:${outer.port}/outer`);
    expect(created.status).toBe(201);
    expect(await sendTest(api, WebhookInfo.parse(created.body).id)).toMatchObject({ ok: false, status: 302, error: 'HTTP 302' });
    expect(outer.paths).toEqual(['/outer']);
    expect(inner.paths).toEqual([]);
  });
});

describe('a bad KNEEBOARD_WEBHOOK_ALLOW entry', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kb-webhook-allow-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stops the API at start with a message naming the variable', async () => {
    const start = startServerProcess({ KNEEBOARD_DATA_DIR: dataDir, KNEEBOARD_WEBHOOK_ALLOW: 'loopback,http://hooks.lan' }, 120_000);
    await expect(start).rejects.toThrow(/API exited with 1:[\s\S]*KNEEBOARD_WEBHOOK_ALLOW\.1: must be public, loopback, private, host or host:port/);
  }, 150_000);
});
