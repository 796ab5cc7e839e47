import Link from 'next/link';
import type { ReleaseView } from '../../lib/releases.ts';
import { Time } from '../common/Time.tsx';
import { RunFigureCells, RunFigureHeads, RunNameCell, StatusCell } from '../runs/RunCells.tsx';
import { SelectHead, SelectRunCell } from '../runs/RunSelection.tsx';

/** One release: its runs newest first, and the one-click comparison with the release before it. */
export function ReleaseSection({ view }: { view: ReleaseView }) {
  const prev = view.previous;
  return (
    <section className="panel release" data-testid="release" data-release={view.release}>
      <header className="release-head">
        <h2>
          <span className="tag mono">{view.release}</span>
        </h2>
        <span className="muted small">
          {view.runs.length} {view.runs.length === 1 ? 'run' : 'runs'} · first run <Time ms={view.firstRunAt} />
        </span>
        {prev ? (
          <Link
            className="button primary compare-prev"
            href={prev.href}
            data-testid="compare-previous"
            title={`${view.release}’s newest finished run against ${prev.release}’s newest finished run`}
          >
            Compare with {prev.release}
          </Link>
        ) : (
          <span className="muted small compare-prev">{view.newestFinished ? 'first release: nothing before it to compare' : 'no finished run to compare'}</span>
        )}
      </header>
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Runs of ${view.release}`}>
        <table className="data">
          <thead>
            <tr>
              <SelectHead />
              <th>Status</th>
              <th>Run</th>
              <RunFigureHeads />
              <th>Labels and note</th>
            </tr>
          </thead>
          <tbody>
            {view.runs.map((run) => (
              <tr key={run.id} className="row-link" data-testid="release-run" data-run-id={run.id}>
                <SelectRunCell id={run.id} label={`${run.release}${run.name ? ` ${run.name}` : ''}`} />
                <StatusCell run={run} />
                <RunNameCell
                  run={run}
                  after={
                    run.id === view.newestFinished?.id ? (
                      <span className="muted small" title="the run this release is compared with">
                        {' '}
                        · newest finished
                      </span>
                    ) : null
                  }
                />
                <RunFigureCells run={run} />
                <td>
                  {(run.labels ?? []).map((l) => (
                    <span key={l} className="chip">
                      {l}
                    </span>
                  ))}
                  {run.note ? <span className="note-excerpt" title={run.note}>{run.note}</span> : null}
                  {(run.labels ?? []).length === 0 && !run.note ? <span className="muted">—</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
