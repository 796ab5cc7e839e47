'use client';

import { useState } from 'react';
import { createShortLink } from '../../lib/client-api.ts';
import { copyText } from './copy.ts';

type State = { kind: 'idle' } | { kind: 'saving' } | { kind: 'shared'; url: string; path: string; copied: boolean } | { kind: 'error'; message: string };

/**
 * Stores the view's full URL path as a short link (`POST /api/v1/links`) and offers `/s/{code}`,
 * copied to the clipboard when the browser allows. A link made for an earlier state of the view
 * is dropped as soon as the view changes.
 */
export function ShareButton({ path }: { path: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const current = state.kind === 'shared' && state.path !== path ? { kind: 'idle' as const } : state;

  const share = async () => {
    setState({ kind: 'saving' });
    try {
      const link = await createShortLink(path);
      const url = `${window.location.origin}/s/${link.code}`;
      setState({ kind: 'shared', url, path, copied: await copyText(url) });
    } catch (err) {
      setState({ kind: 'error', message: (err as Error).message });
    }
  };

  return (
    <span className="share">
      <button type="button" className="primary" onClick={() => void share()} disabled={current.kind === 'saving'} data-testid="share">
        {current.kind === 'saving' ? 'Sharing…' : 'Share'}
      </button>
      {current.kind === 'shared' ? (
        <span className="share-result" data-testid="share-result">
          <input type="text" readOnly value={current.url} aria-label="Short link" data-testid="share-url" onFocus={(e) => e.currentTarget.select()} />
          <span className="muted small">{current.copied ? 'copied' : 'select and copy'}</span>
        </span>
      ) : null}
      {current.kind === 'error' ? (
        <span className="inline-error" role="alert">
          {current.message}
        </span>
      ) : null}
    </span>
  );
}
