import type { LevelDetail } from '@kneeboard/contracts';
import { formatMs, formatPercent, formatQps, formatSeconds } from '@kneeboard/contracts/figures';
import { formatCount } from '../../lib/format.ts';

/** Min/mean/max of the measurement window and its status codes, as two small tables. */
export function LevelStats({ detail: d }: { detail: LevelDetail }) {
  return (
    <div className="level-stats">
      {/* Each table scrolls in its own box: on a phone the six columns are wider than the screen. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Measured window">
      <table className="data" data-testid="level-latency-table">
        <caption className="muted">measured window, {formatSeconds(d.window_s)} s</caption>
        <thead>
          <tr>
            <th className="num">
              min <span className="unit">ms</span>
            </th>
            <th className="num">
              mean <span className="unit">ms</span>
            </th>
            <th className="num">
              max <span className="unit">ms</span>
            </th>
            <th className="num">
              QPS <span className="unit">req/s</span>
            </th>
            <th className="num">requests</th>
            <th className="num">errors</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td className="num" data-testid="level-min">{formatMs(d.min_ms)}</td>
            <td className="num" data-testid="level-mean">{formatMs(d.mean_ms)}</td>
            <td className="num" data-testid="level-max">{formatMs(d.max_ms)}</td>
            <td className="num">{formatQps(d.qps)}</td>
            <td className="num" data-testid="level-requests">{formatCount(d.requests)}</td>
            <td className={d.errors > 0 ? 'num errors' : 'num'}>{formatCount(d.errors)}</td>
          </tr>
        </tbody>
      </table>
      </div>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Responses by status">
      <table className="data" data-testid="level-status-table">
        <caption className="muted">responses by status (status 0: no response — connect error, reset or timeout)</caption>
        <thead>
          <tr>
            <th>status</th>
            <th className="num">requests</th>
            <th className="num">share</th>
          </tr>
        </thead>
        <tbody>
          {d.statuses.length === 0 ? (
            <tr>
              <td colSpan={3} className="muted">
                No request in the measured window.
              </td>
            </tr>
          ) : null}
          {d.statuses.map((s) => (
            <tr key={s.status} data-status={s.status} className={s.ok ? undefined : 'errors'}>
              <td>{s.status === 0 ? 'transport error' : s.status}</td>
              <td className="num">{formatCount(s.count)}</td>
              <td className="num">{formatPercent(d.requests > 0 ? s.count / d.requests : null)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </div>
  );
}
