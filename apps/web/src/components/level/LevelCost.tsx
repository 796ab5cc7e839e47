import type { RunCost } from '@kneeboard/contracts';
import { formatBytes, formatCoresUsed, formatPercent, formatQps, formatSignificant, formatWholeSeconds } from '@kneeboard/contracts/figures';

/**
 * What this level cost the server (issue 28), beside its window's numbers: cores used (the mean of
 * the measured window's seconds), peak memory, requests/s per core, CPU-seconds per 1,000 requests,
 * and the gaps the agent named while reading. Nothing for a run without server metrics; a sentence
 * for a level the agent read nothing at.
 */
export function LevelCost({ cost, level }: { cost: RunCost | null; level: number }) {
  if (!cost || cost.levels.length === 0) return null;
  const l = cost.levels.find((c) => c.level === level);
  return (
    <div className="level-stats" data-testid="level-cost">
      {l ? (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="What it cost the server">
          <table className="data" data-testid="level-cost-table">
            <caption className="muted">
              what it cost the server over the measured window ({formatWholeSeconds(l.seconds)} s of CPU samples, read from {l.source})
            </caption>
            <thead>
              <tr>
                <th className="num">cores used</th>
                <th className="num">peak memory</th>
                <th className="num">
                  QPS per core <span className="unit">req/s</span>
                </th>
                <th className="num">CPU-s per 1,000 req</th>
                <th className="num">efficiency per core</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td className="num" data-testid="level-cores">
                  {l.cores_available === null ? formatCoresUsed(l.cores_used) : `${formatCoresUsed(l.cores_used)} of ${formatCoresUsed(l.cores_available)}`}
                </td>
                <td className="num" data-testid="level-peak-memory">{formatBytes(l.peak_memory_bytes)}</td>
                <td className="num" data-testid="level-qps-per-core">{formatQps(l.qps_per_core)}</td>
                <td className="num" data-testid="level-cpu-per-1k">{formatSignificant(l.cpu_seconds_per_1k)}</td>
                <td className="num" data-testid="level-efficiency-per-core">{formatPercent(l.efficiency_per_core)}</td>
              </tr>
            </tbody>
          </table>
          {l.notes.length > 0 ? (
            <ul className="level-cost-gaps" data-testid="level-cost-gaps" aria-label="Gaps while reading the server's metrics">
              {l.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : (
        <p className="muted" data-testid="level-cost-none">
          No server metrics were read at this level.
        </p>
      )}
    </div>
  );
}
