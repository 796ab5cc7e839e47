import { createHmac } from 'node:crypto';
import type { WebhookRow } from '@kneeboard/clickhouse';
import { formatChangeWithInterval, type WebhookFormat, type WebhookInfo, type WebhookNotification } from '@kneeboard/contracts';

/**
 * A webhook URL as it may be shown: scheme, host and port, and `/…` for the rest. The path of a
 * Slack or Teams incoming webhook is its credential, so it is never shown back, like the secret.
 */
export function redactUrl(url: string): string {
  const u = new URL(url);
  const rest = u.pathname !== '/' || u.search !== '' ? '/…' : '';
  return `${u.protocol}//${u.host}${rest}`;
}

export function webhookInfo(row: WebhookRow): WebhookInfo {
  return {
    id: row.id,
    service: row.service,
    url: redactUrl(row.url),
    format: row.format,
    events: row.events,
    threshold_pct: row.threshold_pct,
    signed: row.secret !== '',
    description: row.description === '' ? null : row.description,
    created_at: row.created_at,
  };
}

/** Slack's mrkdwn treats these three as markup; every user string (service, release, summary) is escaped. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const ratio = (pct: number | null) => (pct === null ? null : pct / 100);

function figureLine(f: WebhookNotification['figures'][number]): string {
  return `${f.name}: ${formatChangeWithInterval(ratio(f.change_pct), ratio(f.low_pct), ratio(f.high_pct))}`;
}

/** A Slack-compatible body (Slack, Mattermost, Rocket.Chat incoming webhooks): `text` for notifications, blocks for the message. */
function slackBody(n: WebhookNotification): object {
  const title = `*${slackEscape(n.service)}*${n.release ? ` ${slackEscape(n.release)}` : ''}`;
  const blocks: object[] = [{ type: 'section', text: { type: 'mrkdwn', text: `${title}: ${slackEscape(n.summary)}\n<${n.url}|Open in Kneeboard>` } }];
  if (n.figures.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: slackEscape(n.figures.map(figureLine).join(' · ')) }] });
  return { text: `${n.service}${n.release ? ` ${n.release}` : ''}: ${n.summary} ${n.url}`, blocks };
}

/** The bytes posted: the notification itself (`json`), or Slack's shape of it. */
export function webhookBody(format: WebhookFormat, n: WebhookNotification): string {
  return JSON.stringify(format === 'slack' ? slackBody(n) : n);
}

/** `sha256=<hex>` of the body under the webhook's secret, as GitHub signs its own webhooks: the receiver recomputes and compares. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
