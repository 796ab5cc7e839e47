'use client';

import type { Run } from '@kneeboard/contracts';
import { useState, type FormEvent } from 'react';
import { updateRun } from '../../lib/client-api.ts';
import { addLabel, MAX_NOTE_LENGTH, removeLabel } from '../../lib/labels.ts';

type Saved = Pick<Run, 'labels' | 'note'>;

/**
 * Labels (chips) and a note on a run, set by people after the fact (ENDPOINTS.updateRun).
 * The note is printed with the run in the performance review.
 */
export function RunNotes({
  runId,
  labels,
  note,
  onSaved,
  readOnly = false,
}: {
  runId: string;
  labels: string[];
  note: string;
  onSaved: (saved: Saved) => void;
  /** A share link's reader sees the labels and the note, with nothing to edit. */
  readOnly?: boolean;
}) {
  const [draft, setDraft] = useState('');
  const [noteDraft, setNoteDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const save = async (body: { labels?: string[]; note?: string }) => {
    setBusy(true);
    setError(null);
    try {
      const run = await updateRun(runId, body);
      onSaved({ labels: run.labels ?? [], note: run.note ?? '' });
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const next = addLabel(labels, draft);
    if (!next.ok) return setError(next.error);
    if (await save({ labels: next.labels })) setDraft('');
  };

  const saveNote = async () => {
    if (noteDraft !== null && (await save({ note: noteDraft.trim() }))) setNoteDraft(null);
  };

  return (
    <section className="panel run-notes" data-testid="run-notes">
      <div>
        <h2>Labels</h2>
        <div className="label-chips" data-testid="run-labels">
          {labels.map((l) => (
            <span key={l} className="chip" data-label={l}>
              {l}
              {readOnly ? null : (
                <button type="button" aria-label={`remove label ${l}`} disabled={busy} onClick={() => void save({ labels: removeLabel(labels, l) })}>
                  ×
                </button>
              )}
            </span>
          ))}
        </div>
        {readOnly && labels.length === 0 ? <p className="muted note-text">none</p> : null}
        {readOnly ? null : (
          <form className="label-form" onSubmit={(e) => void add(e)}>
            <input type="text" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="baseline, flaky…" aria-label="new label" data-testid="label-input" />
            <button type="submit" className="small-button" disabled={busy} data-testid="add-label">
              Add
            </button>
          </form>
        )}
      </div>
      <div className="note-editor">
        <h2>Note</h2>
        {noteDraft === null ? (
          <>
            {note ? (
              <p className="note-text" data-testid="note-text">
                {note}
              </p>
            ) : (
              <p className="muted note-text" data-testid="note-text">
                {readOnly ? 'none' : 'none yet — printed with the run in the review'}
              </p>
            )}
            {readOnly ? null : (
              <div className="note-actions">
                <button type="button" className="small-button" onClick={() => setNoteDraft(note)} data-testid="edit-note">
                  {note ? 'Edit note' : 'Add a note'}
                </button>
              </div>
            )}
          </>
        ) : (
          <>
            <textarea value={noteDraft} maxLength={MAX_NOTE_LENGTH} onChange={(e) => setNoteDraft(e.target.value)} aria-label="note" placeholder="What changed, what to watch, or why this run is the baseline." data-testid="note-input" autoFocus />
            <div className="note-actions">
              <button type="button" className="small-button primary" disabled={busy} onClick={() => void saveNote()} data-testid="save-note">
                Save note
              </button>
              <button type="button" className="small-button" disabled={busy} onClick={() => setNoteDraft(null)}>
                Cancel
              </button>
              <span className="muted small">
                {noteDraft.length}/{MAX_NOTE_LENGTH}
              </span>
            </div>
          </>
        )}
      </div>
      {error ? (
        <p className="inline-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
