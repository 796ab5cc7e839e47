import { agentRows, getRunAgents } from '../../lib/run-agents.ts';
import { formatClockMs, formatSignedClockMs } from '@kneeboard/contracts/figures';
import { formatCount } from '../../lib/format.ts';


/**
 * Which agents drove a run of several (kneeboard sweep --agents): each one's events, clock offset
 * to the API, how late it started after the barriers, and the steps that went wrong for it. Shows
 * nothing for a run of one agent. A server component: it reads the API itself.
 */
export async function RunAgents({ runId }: { runId: string }) {
  const data = await getRunAgents(runId);
  const rows = data === null ? [] : agentRows(data);
  if (rows.length === 0) return null;
  return (
    <section className="panel run-agents" data-testid="run-agents" aria-label="Agents">
      <h2 className="section-title">
        {rows.length} agents drove this run <span className="muted">— the level shown is their total; percentiles come from all their requests together</span>
      </h2>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Agents">
        <table className="data">
          <thead>
            <tr>
              <th>agent</th>
              <th>host</th>
              <th>state</th>
              <th>requests stored</th>
              <th>clock offset (rtt)</th>
              <th>latest start after barrier</th>
              <th>steps</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.agentId} data-agent={r.agentId}>
                <td>{r.agentId}</td>
                <td>{r.host}</td>
                <td>{r.state === 'lost' ? <strong>lost</strong> : r.state}</td>
                <td>
                  {formatCount(r.stored)}
                  {r.recorded !== null && r.recorded !== r.stored ? <span className="muted"> of {formatCount(r.recorded)} recorded</span> : null}
                </td>
                <td>
                  {formatSignedClockMs(r.clockOffsetMs)} ms <span className="muted">({formatClockMs(r.clockRttMs)} ms)</span>
                </td>
                <td>{r.worstStartMs === null ? '–' : `${formatClockMs(r.worstStartMs)} ms`}</td>
                <td>
                  {r.steps}
                  {r.lostOrBehind > 0 ? <strong> · {r.lostOrBehind} partial</strong> : null}
                  {r.generatorLimited > 0 ? <strong> · {r.generatorLimited} generator-limited</strong> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
