import { randomUUID } from 'node:crypto';
import { insertDelivery, type Db, type WebhookRow } from '@kneeboard/clickhouse';
import type { WebhookDelivery, WebhookNotification } from '@kneeboard/contracts';
import { signBody, webhookBody } from './webhook-format.ts';

export interface WebhookSenderOptions {
  /** The first retry waits this long, each next one twice as long (1, 2, 4, 8 s by default). */
  retryBaseMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** A receiver that has not answered by then counts as failed. */
  timeoutMs: number;
}

export const DEFAULT_SENDER_OPTIONS: WebhookSenderOptions = { retryBaseMs: 1_000, maxAttempts: 5, timeoutMs: 10_000 };

/** Why an attempt failed, in a line: the receiver's status, or the network's error code (never the URL, whose path may be a secret). */
function failure(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'no answer in time';
  const cause = (err as { cause?: { code?: string } } | null)?.cause;
  return cause?.code ?? (err instanceof Error ? err.name : 'failed');
}

/**
 * Posts notifications to webhooks and keeps the delivery log. A failed attempt (no answer, or an
 * answer other than 2xx) is retried with exponential backoff, up to `maxAttempts`; every attempt is
 * logged. Redirects are not followed: a webhook is the URL it was registered with. Retries wait in
 * this process (a restart drops the ones pending — the log shows where they stopped).
 */
export class WebhookSender {
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly db: Db,
    private readonly options: WebhookSenderOptions,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** The first attempt, awaited; with `retry`, later attempts are scheduled when it fails. */
  async deliver(hook: WebhookRow, n: WebhookNotification, { retry }: { retry: boolean }): Promise<WebhookDelivery> {
    const deliveryId = randomUUID();
    const body = webhookBody(hook.format, n);
    const first = await this.#attempt(hook, n, body, deliveryId, 1);
    if (!first.ok && retry) this.#retry(hook, n, body, deliveryId, 2);
    return first;
  }

  #retry(hook: WebhookRow, n: WebhookNotification, body: string, deliveryId: string, attempt: number): void {
    if (attempt > this.options.maxAttempts) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#attempt(hook, n, body, deliveryId, attempt)
        .then((d) => (d.ok ? undefined : this.#retry(hook, n, body, deliveryId, attempt + 1)))
        .catch(this.onError);
    }, this.options.retryBaseMs * 2 ** (attempt - 2));
    timer.unref();
    this.#timers.add(timer);
  }

  async #attempt(hook: WebhookRow, n: WebhookNotification, body: string, deliveryId: string, attempt: number): Promise<WebhookDelivery> {
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
    try {
      const res = await fetch(hook.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.options.timeoutMs) });
      status = res.status;
      await res.body?.cancel();
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (err) {
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
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      summary: n.summary.slice(0, 500),
    };
    await insertDelivery(this.db, delivery).catch(this.onError);
    return delivery;
  }

  close(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}
