import type { DeltaCell, DeltaRow } from '../../lib/compare-table.ts';
import { formatLevel } from '@kneeboard/contracts/figures';
import { RunSwatch } from './RunSwatch.tsx';

function Cell({ cell, testId }: { cell: DeltaCell; testId: string }) {
  return (
    <td className={`delta tone-${cell.tone}`} title={cell.title} data-testid={testId} data-verdict={cell.verdict}>
      <span className="delta-line">
        <span className="delta-values">{cell.values}</span>
        {cell.change !== null ? (
          <span className="delta-change">
            <strong>{cell.change}</strong>
            {cell.interval ? <span className="delta-ci"> [{cell.interval}]</span> : null}
          </span>
        ) : null}
      </span>
      <span className="delta-verdict">{cell.verdict}</span>
    </td>
  );
}

/** Level by level: QPS, p50 and p99 of the head against the base, with the change's 95% interval and its verdict. */
export function DeltaTable({
  rows,
  parameter,
  headLabel,
  baseLabel,
  colour,
  hidden,
}: {
  rows: DeltaRow[];
  parameter: string;
  headLabel: string;
  baseLabel: string;
  colour: string;
  /** Levels left out by the level range. */
  hidden: number;
}) {
  return (
    <section className="panel table-wrap delta-table" data-testid="delta-table" tabIndex={0} aria-label={`${headLabel} vs ${baseLabel}, level by level`}>
      <header className="delta-head">
        <RunSwatch colour={colour} dashed={false} />
        <h3>
          {headLabel} <span className="muted">vs</span> {baseLabel}
        </h3>
        {hidden > 0 ? <span className="muted small">{hidden} level(s) outside the range not shown</span> : null}
      </header>
      <table className="data">
        <thead>
          <tr>
            <th className="num">{parameter}</th>
            <th>
              QPS <span className="unit">req/s</span>
            </th>
            <th>
              p50 <span className="unit">ms</span>
            </th>
            <th>
              p99 <span className="unit">ms</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.level} data-level={r.level} data-flagged={r.flags.length > 0 ? 'true' : undefined} className={r.flags.length > 0 ? 'flagged' : undefined}>
              <td className="num strong">
                {formatLevel(r.level)}
                {r.only ? <span className="only-in">only in {r.only === 'base' ? baseLabel : headLabel}</span> : null}
                {r.flags.length > 0 ? (
                  <span className="level-flag" data-testid="level-flag" title={r.flags.join('\n')}>
                    <span aria-hidden="true">⚠ </span>
                    <span className="sr-only">not comparable, the agent was the limit in </span>
                    {r.flagSides.join(' + ')}
                  </span>
                ) : null}
              </td>
              <Cell cell={r.qps} testId="delta-qps" />
              <Cell cell={r.p50} testId="delta-p50" />
              <Cell cell={r.p99} testId="delta-p99" />
            </tr>
          ))}
        </tbody>
      </table>
      {rows.some((r) => r.flags.length > 0) ? (
        <ul className="flag-notes" data-testid="flag-notes">
          {rows
            .filter((r) => r.flags.length > 0)
            .map((r) => (
              <li key={r.level} data-level={r.level}>
                <strong>
                  ⚠ {parameter} {formatLevel(r.level)}
                </strong>{' '}
                not comparable — {r.flags.join('; ')}
              </li>
            ))}
        </ul>
      ) : null}
    </section>
  );
}
