/**
 * Run labels as people type them: trimmed, spaces collapsed, at most 50 characters and 20 labels
 * (the API's `UpdateRunBody`), no repeats (ignoring case). Pure, so the editor only renders.
 */
export const MAX_LABELS = 20;
export const MAX_LABEL_LENGTH = 50;
export const MAX_NOTE_LENGTH = 5000;

export type LabelEdit = { ok: true; labels: string[] } | { ok: false; error: string };

export function addLabel(labels: ReadonlyArray<string>, input: string): LabelEdit {
  const label = input.trim().replace(/\s+/g, ' ');
  if (label === '') return { ok: false, error: 'Type a label first.' };
  if (label.length > MAX_LABEL_LENGTH) return { ok: false, error: `Labels are at most ${MAX_LABEL_LENGTH} characters.` };
  if (labels.some((l) => l.toLowerCase() === label.toLowerCase())) return { ok: false, error: `“${label}” is already there.` };
  if (labels.length >= MAX_LABELS) return { ok: false, error: `A run has at most ${MAX_LABELS} labels.` };
  return { ok: true, labels: [...labels, label] };
}

export function removeLabel(labels: ReadonlyArray<string>, label: string): string[] {
  return labels.filter((l) => l !== label);
}
