import Link from 'next/link';
import type { RunSeries } from '../../lib/compare-series.ts';
import { formatLevel, formatQps } from '@kneeboard/contracts/figures';
import { Time } from '../common/Time.tsx';
import { RunSwatch } from './RunSwatch.tsx';

/** The compared runs, base first: each one's line, release, name, knee and peak, linking to its page. */
export function ComparedRuns({ series, parameter, compact = false }: { series: ReadonlyArray<RunSeries>; parameter: string; compact?: boolean }) {
  return (
    <div className="panel table-wrap" tabIndex={0} role="region" aria-label="The compared runs">
      <table className="data compared-runs" data-testid="compared-runs">
        <thead>
          <tr>
            <th>
              <span className="sr-only">line</span>
            </th>
            <th>Release</th>
            <th>Run</th>
            <th className="num">knee ({parameter})</th>
            <th className="num">
              peak QPS <span className="unit">req/s</span>
            </th>
            {compact ? null : (
              <>
                <th>Started</th>
                <th>Labels</th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {series.map((s) => (
            <tr key={s.key} data-series={s.key} data-run-id={s.runId} data-group={s.group} className={s.member > 0 ? 'group-repeat' : undefined}>
              <td>
                <RunSwatch colour={s.colour} dashed={s.dashed} />
              </td>
              <td>
                <span className="tag mono">{s.memberLabel}</span> {s.role === 'base' ? <span className="role-base">base</span> : null}
              </td>
              <td>
                <Link href={`/runs/${s.runId}`}>{s.run.name || <span className="muted">unnamed run</span>}</Link>
                {s.run.service !== series[0]?.run.service ? <span className="muted"> · {s.run.service}</span> : null}
              </td>
              <td className="num" data-testid="run-knee">
                {s.knee === null ? <span className="muted">none</span> : formatLevel(s.knee)}
              </td>
              <td className="num">
                {s.peak ? (
                  <>
                    {formatQps(s.peak.qps)} <span className="muted">at {formatLevel(s.peak.level)}</span>
                  </>
                ) : (
                  '—'
                )}
              </td>
              {compact ? null : (
                <>
                  <td>
                    <Time ms={s.run.created_at} />
                  </td>
                  <td>{(s.run.labels ?? []).length === 0 ? <span className="muted">—</span> : (s.run.labels ?? []).map((l) => <span key={l} className="chip">{l}</span>)}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
