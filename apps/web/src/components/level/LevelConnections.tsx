import type { LevelDetail, StepConnections } from '@kneeboard/contracts';
import { connectionsView } from '../../lib/level-connections.ts';

/**
 * The connections the agent opened at this level and, over TLS, how long their handshakes took;
 * a sentence when handshakes are a large share of the level's latency. Nothing for a step whose
 * agent did not count its connections.
 */
export function LevelConnections({ connections, detail }: { connections: StepConnections | null | undefined; detail: LevelDetail }) {
  if (!connections) return null;
  const v = connectionsView(connections, detail.requests, detail.mean_ms);
  return (
    <div className="level-stats" data-testid="level-connections">
      <p>
        <span data-testid="level-connections-opened">{v.opened}</span>
        {v.handshake ? (
          <>
            {' · '}
            <span data-testid="level-handshakes">{v.handshake}</span>
          </>
        ) : (
          <span className="muted"> · no TLS handshakes timed</span>
        )}
        <span className="muted"> (the whole step, warm-up included)</span>
      </p>
      {v.flag ? (
        <p role="note" data-testid="level-handshake-flag">
          <strong>Handshake-bound:</strong> {v.flag}
        </p>
      ) : null}
    </div>
  );
}
