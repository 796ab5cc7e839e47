import type { EndpointChanges as Changes } from '@kneeboard/contracts';
import { RunSwatch } from './RunSwatch.tsx';

/**
 * Per endpoint, for one head: the API's line for each request name all the runs share
 * ("checkout: faster (−18% p99 at 64)"), busiest first. Runs without names have no such list
 * (the page looks as it did). React escapes the names.
 */
export function EndpointChanges({ changes, head, headLabel, baseLabel, colour }: { changes: Changes; head: number; headLabel: string; baseLabel: string; colour: string }) {
  return (
    <section className="panel endpoint-changes" data-testid="endpoint-changes">
      <h3>
        <RunSwatch colour={colour} dashed={false} /> {headLabel} <span className="muted">vs</span> {baseLabel}
      </h3>
      <ul>
        {changes.names.map((n) => {
          const line = n.heads[head];
          return line ? (
            <li key={n.name} data-testid="endpoint-change" data-name={n.name} data-verdict={line.verdict}>
              {line.sentence}
            </li>
          ) : null;
        })}
      </ul>
      {changes.omitted > 0 ? <p className="muted small">{changes.omitted} quieter endpoint{changes.omitted === 1 ? '' : 's'} not compared.</p> : null}
    </section>
  );
}
