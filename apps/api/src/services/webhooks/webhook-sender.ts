import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { insertDelivery, type Db, type WebhookRow } from '@kneeboard/clickhouse';
import type { WebhookDelivery, WebhookNotification } from '@kneeboard/contracts';
import { DEFAULT_WEBHOOK_ALLOW, WebhookAllow, WebhookRefused, type Resolve } from './webhook-allow.ts';
import { signBody, webhookBody } from './webhook-format.ts';

export interface WebhookSenderOptions {
  /** The first retry waits this long, each next one twice as long (1, 2, 4, 8 s by default). */
  retryBaseMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** A receiver that has not answered by then counts as failed. */
  timeoutMs: number;
  /** Where webhooks may post: KNEEBOARD_WEBHOOK_ALLOW's entries (webhook-allow.ts). */
  allow: readonly string[];
  /** How names are resolved before connecting: the system's resolver, or a test's (to play a name that re-resolves to loopback). */
  resolve?: Resolve;
}

export const DEFAULT_SENDER_OPTIONS: WebhookSenderOptions = { retryBaseMs: 1_000, maxAttempts: 5, timeoutMs: 10_000, allow: DEFAULT_WEBHOOK_ALLOW };

/** Why an attempt failed, in a line: the receiver's status, or the network's error code (never the URL, whose path may be a secret). */
function failure(err: unknown): string {
  if (err instanceof WebhookRefused) return err.message;
  if (err instanceof Error && err.name === 'TimeoutError') return 'no answer in time';
  const e = err as { code?: string; cause?: { code?: string } } | null;
  return e?.code ?? e?.cause?.code ?? (err instanceof Error ? err.name : 'failed');
}

/**
 * One POST, answered with the receiver's status. node:http rather than fetch, for its `lookup`
 * option: the allow-list is applied to the address the connection is made to (fetch's resolver
 * cannot be replaced without undici's own Agent). No redirect is followed (node:http never does),
 * no connection is pooled, and the answer's body is not read.
 */
function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, lookup: LookupFunction): Promise<number> {
  return new Promise((resolve, reject) => {
    const options = { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: false, lookup };
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options);
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('no answer in time'), { name: 'TimeoutError' })), timeoutMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

/**
 * Posts notifications to webhooks and keeps the delivery log. A failed attempt (no answer, or an
 * answer other than 2xx) is retried with exponential backoff, up to `maxAttempts`; every attempt is
 * logged. Redirects are not followed: a webhook is the URL it was registered with. Retries wait in
 * this process (a restart drops the ones pending — the log shows where they stopped).
 * An address KNEEBOARD_WEBHOOK_ALLOW does not allow is never connected to: the attempt is logged
 * as refused (no status, no duration) and not retried.
 */
export class WebhookSender {
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly allow: WebhookAllow;
  readonly #lookup: LookupFunction;
  readonly #namedLookup: LookupFunction;

  constructor(
    private readonly db: Db,
    private readonly options: WebhookSenderOptions,
    private readonly onError: (err: unknown) => void,
  ) {
    this.allow = new WebhookAllow(options.allow);
    this.#lookup = this.allow.guardedLookup(options.resolve);
    this.#namedLookup = this.allow.guardedLookup(options.resolve, false);
  }

  /** The first attempt, awaited; with `retry`, later attempts are scheduled when it fails. */
  async deliver(hook: WebhookRow, n: WebhookNotification, { retry }: { retry: boolean }): Promise<WebhookDelivery> {
    const deliveryId = randomUUID();
    const body = webhookBody(hook.format, n);
    const { delivery: first, refused } = await this.#attempt(hook, n, body, deliveryId, 1);
    // A refusal is the allow-list's answer, not the receiver's: trying again changes nothing.
    if (!first.ok && !refused && retry) this.#retry(hook, n, body, deliveryId, 2);
    return first;
  }

  #retry(hook: WebhookRow, n: WebhookNotification, body: string, deliveryId: string, attempt: number): void {
    if (attempt > this.options.maxAttempts) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#attempt(hook, n, body, deliveryId, attempt)
        .then(({ delivery, refused }) => (delivery.ok || refused ? undefined : this.#retry(hook, n, body, deliveryId, attempt + 1)))
        .catch(this.onError);
    }, this.options.retryBaseMs * 2 ** (attempt - 2));
    timer.unref();
    this.#timers.add(timer);
  }

  async #attempt(hook: WebhookRow, n: WebhookNotification, body: string, deliveryId: string, attempt: number): Promise<{ delivery: WebhookDelivery; refused: boolean }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Kneeboard-Webhook/1',
      'x-kneeboard-event': n.event,
      'x-kneeboard-delivery': deliveryId,
    };
    if (hook.secret !== '') headers['x-kneeboard-signature'] = signBody(hook.secret, body);
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      const url = new URL(hook.url);
      // An IP literal (and `localhost`) is judged here: it is never looked up. Another name is judged
      // on each address it resolves to, as the connection is made — unless the list names it.
      if (this.allow.refusal(url) !== null) throw new WebhookRefused();
      status = await post(url, headers, body, this.options.timeoutMs, this.allow.named(url) ? this.#namedLookup : this.#lookup);
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (err) {
      refused = err instanceof WebhookRefused;
      error = failure(err);
    }
    const delivery: WebhookDelivery = {
      delivery_id: deliveryId,
      webhook_id: hook.id,
      event: n.event,
      run_id: n.run_id,
      attempt,
      at: Date.now(),
      status,
      ok: error === null,
      error,
      // A refusal tells nothing of the target, not even how long its name took to resolve.
      duration_ms: refused ? 0 : Math.round((performance.now() - started) * 10) / 10,
      summary: n.summary.slice(0, 500),
    };
    await insertDelivery(this.db, delivery).catch(this.onError);
    return { delivery, refused };
  }

  close(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}
