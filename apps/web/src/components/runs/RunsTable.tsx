import Link from 'next/link';
import type { RunSummary } from '@kneeboard/contracts';
import { RunFigureCells, RunFigureHeads, RunNameCell, StatusCell } from './RunCells.tsx';
import { RunSelectionProvider, SelectHead, SelectRunCell } from './RunSelection.tsx';

/** The runs list, newest first (the API's order). Each row links to its run page; ticked rows can be compared. */
export function RunsTable({ runs }: { runs: RunSummary[] }) {
  return (
    <RunSelectionProvider runs={runs.map((r) => ({ id: r.id, created_at: r.created_at }))}>
    <div className="panel table-wrap">
      <table className="data runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <SelectHead />
            <th>Status</th>
            <th>Service</th>
            <th>Release</th>
            <th>Name</th>
            <RunFigureHeads />
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} className="row-link" data-testid="run-row" data-run-id={run.id}>
              <SelectRunCell id={run.id} label={`${run.service} ${run.release}${run.name ? ` ${run.name}` : ''}`} />
              <StatusCell run={run} />
              <td className="strong service-cell">
                <Link className="above" href={`/services/${encodeURIComponent(run.service)}`} title={`${run.service}: runs by release`}>
                  {run.service}
                </Link>
              </td>
              <td className="release-cell">
                <span className="tag mono">{run.release}</span>
              </td>
              <RunNameCell run={run} />
              <RunFigureCells run={run} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    </RunSelectionProvider>
  );
}
