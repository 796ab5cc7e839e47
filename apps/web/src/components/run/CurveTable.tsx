import type { CurvePoint } from '@kneeboard/contracts';
import { formatCount, formatLevel, formatMs, formatQps } from '../../lib/format.ts';

const MS_COLUMNS = [
  ['p50_ms', 'p50'],
  ['p90_ms', 'p90'],
  ['p99_ms', 'p99'],
  ['p999_ms', 'p99.9'],
  ['compute_p50_ms', 'compute p50'],
  ['queue_p50_ms', 'queue p50'],
  ['other_p50_ms', 'other p50'],
] as const;

/** The curve as numbers, like the seeds' tables: one row per level, the level being measured marked. */
export function CurveTable({ curve, parameter }: { curve: CurvePoint[]; parameter: string }) {
  return (
    <section className="panel table-wrap curve-table">
      <table className="data" data-testid="curve-table">
        <thead>
          <tr>
            <th className="num">{parameter}</th>
            <th className="num">
              QPS <span className="unit">req/s</span>
            </th>
            {MS_COLUMNS.map(([key, label]) => (
              <th key={key} className="num">
                {label} <span className="unit">ms</span>
              </th>
            ))}
            <th className="num">requests</th>
            <th className="num">errors</th>
          </tr>
        </thead>
        <tbody>
          {curve.length === 0 ? (
            <tr>
              <td colSpan={MS_COLUMNS.length + 4} className="muted">
                No level has been measured yet.
              </td>
            </tr>
          ) : null}
          {curve.map((p) => (
            <tr key={p.level} data-level={p.level} className={p.in_progress ? 'in-progress' : undefined}>
              <td className="num strong">
                {p.in_progress ? <span className="measuring">measuring · </span> : null}
                {formatLevel(p.level)}
              </td>
              <td className="num">{formatQps(p.qps)}</td>
              {MS_COLUMNS.map(([key]) => (
                <td key={key} className="num">
                  {formatMs(p[key])}
                </td>
              ))}
              <td className="num">{formatCount(p.requests)}</td>
              <td className={p.errors > 0 ? 'num errors' : 'num'}>{formatCount(p.errors)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
