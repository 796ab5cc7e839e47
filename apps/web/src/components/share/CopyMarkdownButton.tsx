'use client';

import { useState } from 'react';
import { fetchCompareMarkdown } from '../../lib/client-api.ts';
import { copyText } from './copy.ts';

type State = { kind: 'idle' } | { kind: 'loading' } | { kind: 'done'; text: string; copied: boolean } | { kind: 'error'; message: string };

/**
 * The comparison as Markdown for a pull request (`GET /api/v1/compare.md`, linking back to this
 * dashboard), copied to the clipboard and shown for copying by hand when the browser will not.
 */
export function CopyMarkdownButton({ apiQuery }: { apiQuery: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' });

  const run = async () => {
    setState({ kind: 'loading' });
    try {
      const text = await fetchCompareMarkdown(apiQuery, window.location.origin, `${window.location.pathname}${window.location.search}`);
      setState({ kind: 'done', text, copied: await copyText(text) });
    } catch (err) {
      setState({ kind: 'error', message: (err as Error).message });
    }
  };

  return (
    <span className="copy-md">
      <button type="button" onClick={() => void run()} disabled={state.kind === 'loading'} data-testid="copy-markdown">
        {state.kind === 'done' && state.copied ? 'Markdown copied' : 'Copy Markdown'}
      </button>
      {state.kind === 'done' ? (
        <div className="popover" data-testid="markdown-popover">
          <div className="snippet-head">
            <span>{state.copied ? 'Copied — paste it into the pull request.' : 'Select and copy:'}</span>
            <button type="button" className="small-button" onClick={() => setState({ kind: 'idle' })} aria-label="Close">
              ×
            </button>
          </div>
          <textarea readOnly value={state.text} rows={10} data-testid="markdown-text" onFocus={(e) => e.currentTarget.select()} />
        </div>
      ) : null}
      {state.kind === 'error' ? (
        <span className="inline-error" role="alert">
          {state.message}
        </span>
      ) : null}
    </span>
  );
}
