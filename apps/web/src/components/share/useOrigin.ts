'use client';

import { useSyncExternalStore } from 'react';

const subscribeNever = () => () => {};

/** The dashboard's origin in the browser; '' while rendering on the server (it cannot know it). */
export function useOrigin(): string {
  return useSyncExternalStore(
    subscribeNever,
    () => window.location.origin,
    () => '',
  );
}
