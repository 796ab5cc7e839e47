import type { RunStatus } from '@kneeboard/contracts';

const LABEL: Record<RunStatus, string> = { running: 'running', finished: 'finished', aborted: 'aborted' };

export function StatusBadge({ status }: { status: RunStatus }) {
  return (
    <span className={`status status-${status}`} data-testid="run-status" data-status={status}>
      {status === 'running' ? <span className="pulse" aria-hidden /> : null}
      {LABEL[status]}
    </span>
  );
}
