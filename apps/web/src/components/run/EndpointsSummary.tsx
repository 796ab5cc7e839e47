import { formatLevel, formatMs, formatPercent } from '@kneeboard/contracts/figures';
import Link from 'next/link';
import type { EndpointsSummaryView } from '../../lib/endpoints-view.ts';
import { formatCount } from '../../lib/format.ts';

/**
 * Which endpoint gives out first and which makes the tail (the API's endpoint analysis), and the
 * busiest endpoints' knees and p99 side by side. Each name links to its own curve (without
 * `hrefFor`, names are plain text); `live`: a running run's, headed as the run stands so far (each
 * name's page follows that name's live stream). Names are the user's strings: text only, long ones
 * cut by CSS with the whole name as the title.
 */
export function EndpointsSummary({
  view,
  parameter,
  current,
  hrefFor,
  live = false,
}: {
  view: EndpointsSummaryView;
  parameter: string;
  current: string | null;
  hrefFor: ((name: string) => string) | null;
  live?: boolean;
}) {
  const at = view.level === null ? null : `${parameter} ${formatLevel(view.level)}${view.levelIsKnee ? ', the run’s knee' : ', the highest level'}`;
  return (
    <section className="panel endpoints-summary" data-testid="endpoints-summary" aria-labelledby="endpoints-title">
      <h2 id="endpoints-title">
        Endpoints{live ? <span className="muted"> · so far, while the run runs</span> : null}
      </h2>
      <p className="endpoints-sentence">{view.summary}</p>
      <p className="muted endpoints-note">Each endpoint’s knee on its own curve ({parameter}){at === null ? '' : `; its p99 at ${at}`}.</p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Each endpoint’s knee and p99">
        <table className="data" data-testid="endpoints-table">
          <thead>
            <tr>
              <th>endpoint</th>
              <th className="num">requests</th>
              <th className="num">knee</th>
              <th className="num">
                p99 <span className="unit">ms</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {view.rows.map((r) => (
              <tr key={r.name} data-name={r.name} aria-current={r.name === current ? 'true' : undefined}>
                <td className="endpoint-cell">
                  {hrefFor === null ? (
                    <span className="endpoint-name" title={r.name}>
                      {r.name}
                    </span>
                  ) : (
                    <Link href={hrefFor(r.name)} className="endpoint-name" title={r.name}>
                      {r.name}
                    </Link>
                  )}
                  {r.saturatesFirst ? <span className="endpoint-flag">saturates first</span> : null}
                  {r.dominatesP99 ? <span className="endpoint-flag">dominates p99</span> : null}
                </td>
                <td className="num">
                  {formatCount(r.requests)} <span className="muted">({formatPercent(r.share)})</span>
                </td>
                <td className="num">{r.kneeLevel === null ? 'none' : formatLevel(r.kneeLevel)}</td>
                <td className="num">{formatMs(r.p99Ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {view.more > 0 ? <p className="muted">and {view.more} quieter endpoint{view.more === 1 ? '' : 's'}{hrefFor === null ? '' : ', in the selector above'}.</p> : null}
    </section>
  );
}
