import { useState } from 'react';

/** Copies text; false when the browser will not (no clipboard API, or permission refused). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** What a copy button shows: nothing yet, waiting for the text, the text (and whether it was copied), or why there is none. */
export type CopyState<Extra extends object = object> =
  | { kind: 'idle' }
  | { kind: 'pending' }
  | ({ kind: 'done'; text: string; copied: boolean } & Extra)
  | { kind: 'error'; message: string };

/**
 * Fetch some text, then copy it to the clipboard, falling back to showing it for copying by hand
 * when the browser will not copy (`copied: false`). `copy(make)` runs `make` (which may add fields
 * to the result, kept in the `done` state); a failure becomes the `error` state's message.
 */
export function useCopyToClipboard<Extra extends object = object>() {
  const [state, setState] = useState<CopyState<Extra>>({ kind: 'idle' });
  const copy = async (make: () => Promise<{ text: string } & Extra>) => {
    setState({ kind: 'pending' });
    try {
      const made = await make();
      setState({ ...made, kind: 'done', copied: await copyText(made.text) });
    } catch (err) {
      setState({ kind: 'error', message: (err as Error).message });
    }
  };
  const reset = () => setState({ kind: 'idle' });
  return { state, copy, reset };
}
