'use client';

import { useActionState } from 'react';
import { testWebhookAction, type TestWebhookState } from '../../app/services/[service]/webhook-actions.ts';

/** Sends one test notification now and says how the receiver answered. */
export function TestWebhookButton({ service, id }: { service: string; id: string }) {
  const [state, action, pending] = useActionState<TestWebhookState, FormData>(testWebhookAction.bind(null, service, id), {});
  const d = state.delivery;
  return (
    <form action={action} className="inline-form">
      <button type="submit" disabled={pending} data-testid="webhook-test">
        {pending ? 'Sending…' : 'Send a test'}
      </button>
      {d ? (
        <span className={d.ok ? 'muted small' : 'inline-error'} role="status" data-testid="webhook-test-result">
          {d.ok ? `delivered (HTTP ${d.status})` : `failed: ${d.error ?? 'no answer'}`}
        </span>
      ) : null}
      {state.error ? (
        <span className="inline-error" role="alert">
          {state.error}
        </span>
      ) : null}
    </form>
  );
}
