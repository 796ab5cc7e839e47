'use client';

import { useActionState } from 'react';
import { addWebhookAction, type AddWebhookState } from '../../app/services/[service]/webhook-actions.ts';

/** A new webhook for this service: where, in which format, for what, beyond which change. */
export function AddWebhookForm({ service }: { service: string }) {
  const [state, action, pending] = useActionState<AddWebhookState, FormData>(addWebhookAction.bind(null, service), {});
  return (
    <form action={action} className="webhook-form" data-testid="add-webhook">
      <label className="field webhook-url">
        URL
        <input type="url" name="url" required maxLength={2000} placeholder="https://hooks.slack.com/services/…" data-testid="webhook-url" />
      </label>
      <label className="field">
        Format
        <select name="format" defaultValue="json" data-testid="webhook-format">
          <option value="json">JSON (your own receiver, CI)</option>
          <option value="slack">Slack-compatible (Slack, Mattermost, Rocket.Chat)</option>
        </select>
      </label>
      <fieldset className="field webhook-events">
        <legend>Tell of</legend>
        <label>
          <input type="checkbox" name="events" value="regression" defaultChecked /> regressions against the release before
        </label>
        <label>
          <input type="checkbox" name="events" value="change_point" defaultChecked /> change points in the history
        </label>
      </fieldset>
      <label className="field">
        Beyond (%)
        <input type="number" name="threshold_pct" min={0} max={1000} step="any" defaultValue={5} data-testid="webhook-threshold" />
      </label>
      <label className="field">
        Signing secret (optional)
        <input type="password" name="secret" minLength={16} maxLength={200} autoComplete="off" placeholder="16+ characters" data-testid="webhook-secret" />
      </label>
      <label className="field">
        Description (optional)
        <input type="text" name="description" maxLength={200} placeholder="#perf channel" />
      </label>
      <button type="submit" className="primary" disabled={pending} data-testid="webhook-add">
        {pending ? 'Adding…' : 'Add webhook'}
      </button>
      {state.error ? (
        <p className="inline-error" role="alert" data-testid="webhook-error">
          {state.error}
        </p>
      ) : null}
      {state.added ? (
        <p className="muted small" role="status">
          Added {state.added}. Its address and secret are not shown again.
        </p>
      ) : null}
    </form>
  );
}
