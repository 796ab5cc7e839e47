/**
 * The cells a run has in every table of runs (the runs list, a release's runs): its status, its
 * name linking to the run page (the whole row is the link), and what was swept and measured.
 */
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { RunSummary } from '@kneeboard/contracts';
import { formatQps } from '@kneeboard/contracts/figures';
import { formatCount } from '../../lib/format.ts';
import { StatusBadge } from '../common/StatusBadge.tsx';
import { Time } from '../common/Time.tsx';
import './runs-cards.css';

export function StatusCell({ run }: { run: RunSummary }) {
  return (
    <td>
      <StatusBadge status={run.status} />
    </td>
  );
}

/** The run's name as the row's link; `after` follows it in the same cell. */
export function RunNameCell({ run, after }: { run: RunSummary; after?: ReactNode }) {
  return (
    <td className="name-cell">
      <Link className="stretch" href={`/runs/${run.id}`}>
        {run.name || <span className="muted">unnamed run</span>}
      </Link>
      {after}
    </td>
  );
}

export function RunFigureHeads() {
  return (
    <>
      <th>Started</th>
      <th>Swept</th>
      <th className="num">Levels</th>
      <th className="num">
        Peak QPS <span className="unit">req/s</span>
      </th>
      <th className="num">Requests</th>
    </>
  );
}

/** Started, swept, levels, peak QPS, requests: under `RunFigureHeads`. */
export function RunFigureCells({ run }: { run: RunSummary }) {
  return (
    <>
      {/* data-label: the column's name where a phone shows the row as a card (no header row). */}
      <td className="fig-started" data-label="started">
        <Time ms={run.created_at} relative />
      </td>
      <td className="muted fig-swept" data-label="swept">
        {run.parameter} · {run.load_model} loop
      </td>
      <td className="num fig-levels" data-label="levels">
        {run.levels}
      </td>
      <td className="num fig-peak" data-label="peak">
        {formatQps(run.peak_qps)}
      </td>
      <td className="num fig-requests" data-label="requests">
        {formatCount(run.requests)}
      </td>
    </>
  );
}
