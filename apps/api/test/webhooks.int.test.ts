import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ListDeliveriesResponse, ListWebhooksResponse, WebhookDelivery, WebhookInfo, WebhookNotification } from '@kneeboard/contracts';
import { postJson, startTestApi, storeSyntheticRun, type TestApi } from './helpers.ts';

const SERVICE = 'hooked <b>&';
const SECRET = 'a-signing-secret-0123456789';
const WEB = 'http://kneeboard.example';
/** The receivers are on 127.0.0.1, which KNEEBOARD_WEBHOOK_ALLOW's default (public) refuses. */
const LOOPBACK = ['loopback'];

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers each request with the next status of `statuses` (200 once they run out). */
async function startReceiver(): Promise<{ url: string; received: Received[]; statuses: number[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(statuses.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, statuses, close: () => new Promise((r) => server.close(() => r())) };
}

const enc = encodeURIComponent(SERVICE);

describe('webhooks: told of a regression against the release before, retried, signed, logged', () => {
  let api: TestApi;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    api = await startTestApi({ webhooks: { settleMs: 20, retryBaseMs: 50, webUrl: WEB, allow: LOOPBACK } });
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  const hooks = `/api/v1/services/${enc}/webhooks`;
  const deliveries = async (id: string) => ListDeliveriesResponse.parse((await (await fetch(`${api.url}${hooks}/${id}/deliveries`)).json())).deliveries;

  it('refuses a URL that is not http(s) or carries credentials, naming the field and storing nothing', async () => {
    for (const url of ['ftp://127.0.0.1/x', `http://user:pass@127.0.0.1:1/x`, 'not a url']) {
      const res = await postJson(`${api.url}${hooks}`, { url });
      expect(res.status, url).toBe(400);
      expect(ApiError.parse(res.body).field).toBe('url');
    }
    const short = await postJson(`${api.url}${hooks}`, { url: `${receiver.url}/x`, secret: 'short' });
    expect(short.status).toBe(400);
    expect(ApiError.parse(short.body).field).toBe('secret');
    expect(ListWebhooksResponse.parse(await (await fetch(`${api.url}${hooks}`)).json()).webhooks).toEqual([]);
  });

  it('delivers a regression once, after a 500, signed; never shows the secret or the URL path back', async () => {
    const created = await postJson(`${api.url}${hooks}`, { url: `${receiver.url}/secret-path/T000/B000`, secret: SECRET, events: ['regression'], threshold_pct: 5 });
    expect(created.status).toBe(201);
    const hook = WebhookInfo.parse(created.body);
    expect(hook.url).toBe(`${receiver.url}/…`);
    expect(hook.signed).toBe(true);
    const listed = await (await fetch(`${api.url}${hooks}`)).text();
    expect(listed).not.toContain(SECRET);
    expect(listed).not.toContain('secret-path');

    await storeSyntheticRun(api.url, { seed: 1, service: SERVICE, release: 'v1', workers: 4 });
    await storeSyntheticRun(api.url, { seed: 2, service: SERVICE, release: 'v1', workers: 4 });
    await api.app.runNotifier.idle();
    // The first release has nothing before it: nothing to tell.
    expect(receiver.received).toHaveLength(0);

    receiver.statuses.push(500);
    const slower = await storeSyntheticRun(api.url, { seed: 3, service: SERVICE, release: 'v2', workers: 4, qpsScale: 0.6, latencyScale: 1.6 });
    await api.app.runNotifier.idle();
    // The first attempt got the 500; the retry (50 ms later) the 200.
    for (let i = 0; i < 200 && receiver.received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    expect(first!.path).toBe('/secret-path/T000/B000');
    expect(second!.headers['x-kneeboard-delivery']).toBe(first!.headers['x-kneeboard-delivery']);
    expect(second!.headers['x-kneeboard-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(second!.body).digest('hex')}`);
    const n = WebhookNotification.parse(JSON.parse(second!.body));
    expect(n.event).toBe('regression');
    expect(n.run_id).toBe(slower);
    expect(n.service).toBe(SERVICE);
    expect(n.summary).toMatch(/regress/i);
    expect(n.summary).toContain('v2 against v1');
    expect(n.figures.length).toBeGreaterThan(0);
    expect(n.figures.every((f) => Math.abs(f.change_pct) > 5)).toBe(true);
    const link = new URL(n.url);
    expect(`${link.origin}${link.pathname}`).toBe(`${WEB}/compare`);
    expect([...link.searchParams]).toEqual([
      ['base', `release:${SERVICE}@v1`],
      ['head', `release:${SERVICE}@v2`],
    ]);

    const log = await deliveries(hook.id);
    expect(log.map((d) => [d.attempt, d.status, d.ok])).toEqual([
      [2, 200, true],
      [1, 500, false],
    ]);
    expect(log[1]!.error).toBe('HTTP 500');
    expect(JSON.stringify(log)).not.toContain(SECRET);

    // Judged again (another replica, a restart): the log says it was told already.
    await api.app.runNotifier.judge(slower);
    expect(receiver.received).toHaveLength(2);
  });

  it('tells nothing of a release that did not regress, and a Slack webhook gets escaped mrkdwn', async () => {
    const slack = WebhookInfo.parse((await postJson(`${api.url}${hooks}`, { url: `${receiver.url}/slack`, format: 'slack', events: ['regression'] })).body);
    const before = receiver.received.length;
    // v3 measures like v2: no regression against it.
    await storeSyntheticRun(api.url, { seed: 4, service: SERVICE, release: 'v3', workers: 4, qpsScale: 0.6, latencyScale: 1.6 });
    await api.app.runNotifier.idle();
    expect(receiver.received.length).toBe(before);
    expect(await deliveries(slack.id)).toEqual([]);

    const test = await postJson(`${api.url}${hooks}/${slack.id}/test`, {});
    expect(test.status).toBe(200);
    expect(WebhookDelivery.parse(test.body)).toMatchObject({ ok: true, status: 200, event: 'test', attempt: 1 });
    const body = JSON.parse(receiver.received.at(-1)!.body) as { text: string; blocks: Array<{ text?: { text: string } }> };
    expect(receiver.received.at(-1)!.path).toBe('/slack');
    expect(body.blocks[0]!.text!.text).toContain('hooked &lt;b&gt;&amp;');
    expect(body.blocks[0]!.text!.text).not.toContain('<b>');
    expect(receiver.received.at(-1)!.headers['x-kneeboard-signature']).toBeUndefined();
  });

  it('a removed webhook is told nothing more; an unknown one is 404 naming it', async () => {
    const listed = ListWebhooksResponse.parse(await (await fetch(`${api.url}${hooks}`)).json()).webhooks;
    for (const h of listed) expect((await fetch(`${api.url}${hooks}/${h.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(ListWebhooksResponse.parse(await (await fetch(`${api.url}${hooks}`)).json()).webhooks).toEqual([]);
    const before = receiver.received.length;
    await storeSyntheticRun(api.url, { seed: 5, service: SERVICE, release: 'v4', workers: 4, qpsScale: 0.3, latencyScale: 3 });
    await api.app.runNotifier.idle();
    expect(receiver.received.length).toBe(before);
    const gone = await postJson(`${api.url}${hooks}/${listed[0]!.id}/test`, {});
    expect(gone.status).toBe(404);
    expect(ApiError.parse(gone.body).field).toBe('webhook');
  });
});

describe('webhooks: told of a change point in the history once, whenever it is found', () => {
  let api: TestApi;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    api = await startTestApi({ webhooks: { settleMs: 10, retryBaseMs: 50, webUrl: WEB, allow: LOOPBACK } });
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  it('sends the change point at v7 once, with the comparison across it, though it is found releases later', async () => {
    const service = 'drifting';
    const created = await postJson(`${api.url}/api/v1/services/${service}/webhooks`, { url: `${receiver.url}/cp`, events: ['change_point'], threshold_pct: 5 });
    expect(created.status).toBe(201);
    // Sequential: a release's place is its first run's creation time. Peak QPS 20% lower from v7 on.
    for (let i = 0; i < 12; i++) {
      await storeSyntheticRun(api.url, { seed: 100 + i, service, release: `v${i + 1}`, levels: [1, 2, 4, 8], workers: 4, ...(i >= 6 ? { qpsScale: 0.8, latencyScale: 1.25 } : {}) });
      await api.app.runNotifier.idle();
    }
    const told = receiver.received.map((r) => WebhookNotification.parse(JSON.parse(r.body)));
    expect(told.map((n) => [n.event, n.release])).toEqual([['change_point', 'v7']]);
    const [n] = told;
    expect(n!.figures.find((f) => f.name === 'Peak throughput')!.change_pct).toBeLessThan(-15);
    expect(n!.summary).toMatch(/^Change point at v7 \(after v6\)/);
    expect([...new URL(n!.url).searchParams]).toEqual([
      ['base', `release:${service}@v6`],
      ['head', `release:${service}@v7`],
    ]);
  });
});
