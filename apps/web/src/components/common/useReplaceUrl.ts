'use client';

import { useEffect } from 'react';

/**
 * Keeps the address bar on the view's canonical URL as its state changes, without a navigation or
 * a new history entry (Next integrates `history.replaceState` with its router), so the URL can be
 * copied, shared or reloaded at any moment and shows the same view.
 */
export function useReplaceUrl(path: string): void {
  useEffect(() => {
    if (`${window.location.pathname}${window.location.search}` !== path) window.history.replaceState(null, '', path);
  }, [path]);
}
