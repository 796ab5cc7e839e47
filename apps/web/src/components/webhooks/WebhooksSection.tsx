import { ENDPOINTS, type WebhookDelivery, type WebhookInfo } from '@kneeboard/contracts';
import { removeWebhookAction } from '../../app/services/[service]/webhook-actions.ts';
import { callWithCredential } from '../../lib/credential-call.ts';
import { formatTimestamp } from '../../lib/format.ts';
import { requestCredential } from '../../lib/server-credentials.ts';
import { AddWebhookForm } from './AddWebhookForm.tsx';
import { TestWebhookButton } from './TestWebhookButton.tsx';
import './webhooks.css';

const RECENT = 5;
const EVENT_NAMES: Record<string, string> = { regression: 'regressions', change_point: 'change points' };

function Deliveries({ deliveries }: { deliveries: WebhookDelivery[] }) {
  if (deliveries.length === 0) return <span className="muted">nothing sent yet</span>;
  return (
    <ul className="webhook-deliveries" data-testid="webhook-deliveries">
      {deliveries.slice(0, RECENT).map((d) => (
        <li key={`${d.delivery_id}-${d.attempt}`} className={d.ok ? 'delivery-ok' : 'delivery-failed'}>
          <span aria-hidden>{d.ok ? '✓' : '✗'}</span> {formatTimestamp(d.at, 'UTC')} UTC · {d.event}
          {d.attempt > 1 ? ` · attempt ${d.attempt}` : ''} · {d.ok ? `HTTP ${d.status}` : (d.error ?? 'failed')}
          <span className="muted"> — {d.summary}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A service's webhooks: told when a finished run regresses against the release before it or lands
 * a change point. Managing them needs a write or admin token; without one the section says so.
 */
export async function WebhooksSection({ service }: { service: string }) {
  const credential = await requestCredential();
  if (credential.kind === 'share') return null;
  const list = await callWithCredential(ENDPOINTS.listWebhooks, { params: { service } }, credential);
  if (!list.ok) {
    return (
      <section className="panel webhooks" data-testid="webhooks">
        <h2>Webhooks</h2>
        <p className="muted">
          {list.status === 401 || list.status === 403 ? 'Managing webhooks needs a write or admin token: sign in on the Tokens page.' : `Webhooks cannot be read: ${list.message}`}
        </p>
      </section>
    );
  }
  const hooks = list.value.webhooks;
  const logs = await Promise.all(hooks.map((h) => callWithCredential(ENDPOINTS.listDeliveries, { params: { service, webhook: h.id } }, credential)));
  return (
    <section className="panel webhooks" data-testid="webhooks">
      <h2>Webhooks</h2>
      <p className="muted small">
        Told when a finished run regresses against the release before it, or lands a change point in this service’s history. Failed deliveries are
        retried (1, 2, 4, 8 s). Addresses are shown without their path and secrets never: they are credentials.
      </p>
      {hooks.length === 0 ? <p className="muted">None yet.</p> : null}
      {hooks.map((h: WebhookInfo, i) => {
        const log = logs[i];
        return (
          <div key={h.id} className="webhook" data-testid="webhook" data-webhook={h.id}>
            <div className="webhook-head">
              <code>{h.url}</code>
              <span className="chip">{h.format}</span>
              <span className="muted small">
                {h.events.map((e) => EVENT_NAMES[e] ?? e).join(' and ')} beyond {h.threshold_pct}%{h.signed ? ' · signed' : ''}
                {h.description ? ` · ${h.description}` : ''}
              </span>
              <TestWebhookButton service={service} id={h.id} />
              <form action={removeWebhookAction.bind(null, service)} className="inline-form">
                <input type="hidden" name="id" value={h.id} />
                <button type="submit" data-testid="webhook-remove">
                  Remove
                </button>
              </form>
            </div>
            {log?.ok ? <Deliveries deliveries={log.value.deliveries} /> : <span className="inline-error">{log?.message}</span>}
          </div>
        );
      })}
      <AddWebhookForm service={service} />
    </section>
  );
}
