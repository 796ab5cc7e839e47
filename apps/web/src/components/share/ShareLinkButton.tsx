'use client';

import { useState } from 'react';
import { createShareLink } from '../../app/tokens/actions.ts';
import { CopyField } from '../tokens/CopyField.tsx';
import { ExpiryField } from '../tokens/ExpiryField.tsx';
import './share-link.css';

type State = { kind: 'idle' } | { kind: 'pending' } | { kind: 'done'; url: string; expiresAt: number | null } | { kind: 'error'; message: string };

/**
 * A read-only link to exactly this view: a share token for these runs (one run, or one
 * comparison's), appended as `?share=`. Whoever opens it sees this view and nothing else, until it
 * expires or an admin revokes it on the Tokens page.
 */
export function ShareLinkButton({ runs, path, label }: { runs: string[]; path: string; label: string }) {
  const [open, setOpen] = useState(false);
  const [days, setDays] = useState(7);
  const [state, setState] = useState<State>({ kind: 'idle' });

  const create = async () => {
    setState({ kind: 'pending' });
    const res = await createShareLink({ runs, label, days }).catch((err: unknown) => ({ error: (err as Error).message }));
    if ('error' in res) return setState({ kind: 'error', message: res.error });
    const url = new URL(path, window.location.origin);
    url.searchParams.set('share', res.token);
    setState({ kind: 'done', url: url.toString(), expiresAt: res.expiresAt });
  };

  return (
    <span className="share share-link no-print">
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="share-link">
        Read-only link
      </button>
      {open ? (
        <div className="popover share-link-popover" role="group" aria-label="Read-only share link" data-testid="share-link-popover">
          <p className="muted small">Anyone with this link can see this view only — no other run, no list, no changes.</p>
          <div className="share-link-row">
            <ExpiryField value={days} onChange={(e) => setDays(Number(e.target.value))} data-testid="share-link-expiry" />
            <button type="button" className="primary" onClick={() => void create()} disabled={state.kind === 'pending'} data-testid="share-link-create">
              {state.kind === 'pending' ? 'Creating…' : 'Create link'}
            </button>
          </div>
          {state.kind === 'done' ? (
            <div data-testid="share-link-result">
              <CopyField value={state.url} label="Read-only link" testId="share-link-url" />
              <p className="muted small">{state.expiresAt === null ? 'Never expires; revoke it on the Tokens page.' : `Expires ${new Date(state.expiresAt).toLocaleString()}; revoke it earlier on the Tokens page.`}</p>
            </div>
          ) : null}
          {state.kind === 'error' ? (
            <p className="inline-error" role="alert" data-testid="share-link-error">
              {state.message}
            </p>
          ) : null}
        </div>
      ) : null}
    </span>
  );
}
