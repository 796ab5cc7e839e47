import type { StepConnections } from '@kneeboard/contracts';
import type { CurveTableRow } from '../../lib/curve-table.ts';
import { handshakeCell } from '../../lib/level-connections.ts';
import { achievedCell } from '../../lib/open-loop.ts';
import { formatLevel, formatMs, formatQps } from '@kneeboard/contracts/figures';
import { formatCount } from '../../lib/format.ts';

const MS_COLUMNS = [
  ['p50_ms', 'p50'],
  ['p90_ms', 'p90'],
  ['p99_ms', 'p99'],
  ['p999_ms', 'p99.9'],
  ['compute_p50_ms', 'compute p50'],
  ['queue_p50_ms', 'queue p50'],
  ['other_p50_ms', 'other p50'],
] as const;

const COLUMNS = MS_COLUMNS.length + 6;
const NO_CONNECTIONS: ReadonlyMap<number, StepConnections> = new Map();

/**
 * The curve as numbers, like the seeds' tables: one row per level, the level being measured marked,
 * with the analysis' scaling efficiency (an inline bar) and Little's-law in-flight check per level.
 * A level where the generator may have been the ceiling is flagged in its row.
 */
export function CurveTable({
  rows,
  parameter,
  efficiencyBasis,
  closedLoop,
  openLoop = false,
  selected = null,
  onSelect,
  connections = NO_CONNECTIONS,
}: {
  rows: CurveTableRow[];
  parameter: string;
  efficiencyBasis: string | null;
  closedLoop: boolean;
  /** Level = offered rate: the column is achieved ÷ offered instead of scaling efficiency. */
  openLoop?: boolean;
  /** The level whose panel is open, and what a click on a level does (opens "Inside …"). */
  selected?: number | null;
  onSelect?: (level: number) => void;
  /** Levels whose agent reported its connections: two columns, only when there is any. */
  connections?: ReadonlyMap<number, StepConnections>;
}) {
  const withConnections = connections.size > 0;
  const limited = rows.filter((r) => r.inFlight?.generatorLimited).length;
  return (
    <section className="panel table-wrap curve-table" tabIndex={0} aria-label="The curve, one row per level">
      <table className="data" data-testid="curve-table">
        <thead>
          <tr>
            <th className="num">{parameter}</th>
            <th className="num">
              QPS <span className="unit">req/s</span>
            </th>
            {openLoop ? (
              <th className="eff-col" title="achieved ÷ offered: the share of the offered rate the server served" data-testid="achieved-head">
                achieved ÷ offered
              </th>
            ) : (
              <th className="eff-col" title="X(N) ÷ (N·X(1)): how much of linear scaling each level kept">
                efficiency
              </th>
            )}
            {MS_COLUMNS.map(([key, label]) => (
              <th key={key} className="num">
                {label} <span className="unit">ms</span>
              </th>
            ))}
            {closedLoop ? (
              <th className="num" title="Little's law: requests in flight = QPS × mean latency; it should equal the configured level">
                in flight
              </th>
            ) : null}
            <th className="num">requests</th>
            <th className="num">errors</th>
            {withConnections ? (
              <>
                <th className="num" title="connections the agent opened during the step, warm-up included" data-testid="connections-head">
                  connections
                </th>
                <th className="num" title="TLS handshake time of the step's connections, p50 / p99">
                  TLS handshake p50 / p99 <span className="unit">ms</span>
                </th>
              </>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={COLUMNS + (withConnections ? 2 : 0)} className="muted">
                No level has been measured yet.
              </td>
            </tr>
          ) : null}
          {rows.map(({ point: p, efficiency, inFlight }) => {
            const cls = [p.in_progress ? 'in-progress' : '', inFlight?.generatorLimited ? 'generator-limited' : '', selected === p.level ? 'selected' : '', onSelect ? 'clickable' : '']
              .filter(Boolean)
              .join(' ');
            return (
              <tr key={p.level} data-level={p.level} data-generator-limited={inFlight?.generatorLimited ? 'true' : undefined} className={cls || undefined} onClick={onSelect ? () => onSelect(p.level) : undefined}>
                <td className="num strong">
                  {p.in_progress ? <span className="measuring">measuring · </span> : null}
                  {onSelect ? (
                    <button
                      type="button"
                      className="level-link"
                      aria-expanded={selected === p.level}
                      aria-controls="level-panel"
                      title={`Inside ${parameter} ${formatLevel(p.level)}: spectrum, histogram, the step over time, status codes`}
                      data-testid="open-level"
                      // The row's click handler opens it too; one click must not toggle it twice.
                      onClick={(e) => {
                        e.stopPropagation();
                        onSelect(p.level);
                      }}
                    >
                      {formatLevel(p.level)}
                    </button>
                  ) : (
                    formatLevel(p.level)
                  )}
                </td>
                <td className="num">{formatQps(p.qps)}</td>
{openLoop ? (
                  <AchievedTd point={p} />
                ) : (
                                <td className="eff-col" data-testid="efficiency">
                    {efficiency ? (
                      <span className="eff" title={`efficiency ${efficiency.text}`}>
                        <span className="eff-bar" aria-hidden>
                          <span className={efficiency.superlinear ? 'eff-fill superlinear' : 'eff-fill'} style={{ width: `${efficiency.barPct}%` }} />
                        </span>
                        <span className="eff-text">{efficiency.text}</span>
                      </span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                )}
                {MS_COLUMNS.map(([key]) => (
                  <td key={key} className="num">
                    {formatMs(p[key])}
                  </td>
                ))}
                {closedLoop ? (
                  <td className={inFlight?.generatorLimited ? 'num in-flight limited' : 'num in-flight'} title={inFlight?.title}>
                    {inFlight ? (
                      <>
                        {inFlight.generatorLimited ? (
                          <span className="gen-flag" data-testid="generator-limited" role="img" aria-label="possibly generator-limited">
                            !
                          </span>
                        ) : null}
                        {inFlight.text}
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                ) : null}
                <td className="num">{formatCount(p.requests)}</td>
                <td className={p.errors > 0 ? 'num errors' : 'num'}>{formatCount(p.errors)}</td>
                {withConnections ? (
                  <>
                    <td className="num" data-testid="connections-opened">{formatCount(connections.get(p.level)?.opened ?? null)}</td>
                    <td className="num" data-testid="connections-handshake">{handshakeCell(connections.get(p.level))}</td>
                  </>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
      {openLoop ? (
        <p className="table-foot" data-testid="achieved-foot">
          An open loop offers a fixed rate ({parameter}, req/s): <em>achieved ÷ offered</em> is the share the server served. Below saturation it
          stays near 100%; an amber bar (under 95%) means the server could not keep up.
        </p>
      ) : null}
      {!openLoop && (efficiencyBasis || closedLoop) ? (
        <p className="table-foot">
          {efficiencyBasis ? <span data-testid="efficiency-basis">{efficiencyBasis}</span> : null}
          {closedLoop ? (
            <>
              {' '}
              In flight is QPS × mean latency (Little&apos;s law): a closed loop should hold the configured {parameter} in flight.
              {limited > 0 ? (
                <>
                  {' '}
                  Rows marked <span className="gen-flag">!</span> were limited by the load generator, not the server: the agent flagged the step
                  itself (event-loop lag, late or missed sends, its own CPU — hover the row for its reason) or fewer than 90% of the
                  {` ${parameter} `}requests were in flight (Little&apos;s law). Comparisons call no change there.
                </>
              ) : null}
            </>
          ) : null}
        </p>
      ) : null}
    </section>
  );
}

function AchievedTd({ point }: { point: Parameters<typeof achievedCell>[0] }) {
  const cell = achievedCell(point);
  return (
    <td className="eff-col" data-testid="achieved" data-saturated={cell?.saturated ? 'true' : undefined}>
      {cell ? (
        <span className="eff" title={cell.title}>
          <span className="eff-bar" aria-hidden>
            <span className={cell.saturated ? 'eff-fill saturated' : 'eff-fill'} style={{ width: `${cell.barPct}%` }} />
          </span>
          <span className="eff-text">{cell.text}</span>
        </span>
      ) : (
        <span className="muted">—</span>
      )}
    </td>
  );
}
