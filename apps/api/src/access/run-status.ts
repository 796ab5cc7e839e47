import { Run } from '@kneeboard/contracts';

/**
 * A run's status as an `ingest` token reads it: the run as its agent created it and where it stands
 * (running, finished, aborted) — what an agent asks before replaying its spool. No steps, curve,
 * analysis or agents, and not the labels and note people added. `{ run }`, the same shape as the
 * `run` of a full RunDetail, so an agent reads either the same way.
 */
const RunStatusView = Run.omit({ labels: true, note: true });

export const runStatusOf = (run: unknown): { run: Run } => ({ run: RunStatusView.parse(run) });
