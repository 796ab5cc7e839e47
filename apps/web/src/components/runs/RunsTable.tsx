import Link from 'next/link';
import type { RunSummary } from '@kneeboard/contracts';
import { formatCount, formatQps } from '../../lib/format.ts';
import { StatusBadge } from '../common/StatusBadge.tsx';
import { Time } from '../common/Time.tsx';

/** The runs list, newest first (the API's order). Each row links to its run page. */
export function RunsTable({ runs }: { runs: RunSummary[] }) {
  return (
    <div className="panel table-wrap">
      <table className="data runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <th>Status</th>
            <th>Service</th>
            <th>Release</th>
            <th>Name</th>
            <th>Started</th>
            <th>Swept</th>
            <th className="num">Levels</th>
            <th className="num">
              Peak QPS <span className="unit">req/s</span>
            </th>
            <th className="num">Requests</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} className="row-link" data-testid="run-row" data-run-id={run.id}>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td className="strong">
                <Link className="above" href={`/services/${encodeURIComponent(run.service)}`} title={`${run.service}: runs by release`}>
                  {run.service}
                </Link>
              </td>
              <td>
                <span className="tag mono">{run.release}</span>
              </td>
              <td>
                <Link className="stretch" href={`/runs/${run.id}`}>
                  {run.name || <span className="muted">unnamed run</span>}
                </Link>
              </td>
              <td>
                <Time ms={run.created_at} relative />
              </td>
              <td className="muted">
                {run.parameter} · {run.load_model} loop
              </td>
              <td className="num">{run.levels}</td>
              <td className="num">{formatQps(run.peak_qps)}</td>
              <td className="num">{formatCount(run.requests)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
