'use client';

import { useActionState } from 'react';
import { createTokenAction, type CreateState } from '../../app/tokens/actions.ts';
import { CopyField } from './CopyField.tsx';
import { ExpiryField } from './ExpiryField.tsx';

/** A new ingest, write or admin token; its secret is shown here once, with a copy button. */
export function CreateTokenForm() {
  const [state, action, pending] = useActionState<CreateState, FormData>(createTokenAction, {});
  return (
    <form action={action} className="panel token-form" data-testid="create-token">
      <h2>New token</h2>
      <div className="token-fields">
        <label className="field">
          Name
          <input type="text" name="name" required maxLength={100} placeholder="ci agents" data-testid="token-name" />
        </label>
        <label className="field">
          Scope
          <select name="scope" defaultValue="ingest" data-testid="token-scope">
            <option value="ingest">ingest — agents: runs, steps, events</option>
            <option value="write">write — every read and write of runs</option>
            <option value="admin">admin — everything, tokens included</option>
          </select>
        </label>
        <label className="field">
          Service (optional, ingest and write)
          <input type="text" name="service" maxLength={200} placeholder="any service" data-testid="token-service" />
        </label>
        <ExpiryField name="expires" defaultValue="90" data-testid="token-expiry" />
        <button type="submit" className="primary" disabled={pending} data-testid="token-create">
          {pending ? 'Creating…' : 'Create token'}
        </button>
      </div>
      {state.error ? (
        <p className="inline-error" role="alert" data-testid="token-error">
          {state.error}
        </p>
      ) : null}
      {state.created ? (
        <div className="token-secret" data-testid="token-created">
          <p>
            <strong>{state.created.name}</strong> ({state.created.scope}): copy the secret now — it is not stored and will not be shown again.
          </p>
          <CopyField value={state.created.token} label="New token secret" testId="token-secret" />
        </div>
      ) : null}
    </form>
  );
}
