'use client';

import type { RunDetail, RunNameCurves } from '@kneeboard/contracts';
import { useMemo } from 'react';
import { prepareMultiples } from '../../lib/endpoint-multiples.ts';
import { endpointOptions, endpointsSummary } from '../../lib/endpoints-view.ts';
import { namesOf } from '../../lib/live.ts';
import { EndpointMultiples } from './EndpointMultiples.tsx';
import { EndpointSelector } from './EndpointSelector.tsx';
import { EndpointsSummary } from './EndpointsSummary.tsx';
import './endpoints.css';

/**
 * A run whose requests carry names: the endpoint selector and the endpoints' summary (the names and
 * their analysis are the run's whatever curve is shown). Nothing for a run without names, so such a
 * run looks as it did before names existed. While the run runs, both as the live snapshots have them
 * (`detail` is the live one), the summary headed *so far*: picking a name opens its page, whose live
 * stream is that name's (useLiveRun, `?name=`), so its curve grows as the run goes on.
 */
export function Endpoints({
  detail,
  current,
  unknownName,
  nameCurves = null,
  hrefFor,
}: {
  detail: RunDetail;
  /** The request name whose curve the page loaded with (`?name=`); null: the whole run. */
  current: string | null;
  unknownName: string | null;
  /** Every name's curve (`GET /runs/{id}/names`), drawn as small multiples; null: none. */
  nameCurves?: RunNameCurves | null;
  hrefFor: (name: string | null) => string;
}) {
  const names = useMemo(() => namesOf(detail), [detail]);
  const options = useMemo(() => endpointOptions(names), [names]);
  const summary = useMemo(() => (detail.endpoints ? endpointsSummary(detail.endpoints, names) : null), [detail.endpoints, names]);
  const multiples = useMemo(
    () => (nameCurves && nameCurves.names.length > 0 ? prepareMultiples(nameCurves, detail.endpoints?.saturates_first ?? null, detail.run.parameter) : null),
    [nameCurves, detail.endpoints, detail.run.parameter],
  );
  const live = detail.run.status === 'running';
  if (options.length === 0) return null;
  return (
    <div className="endpoints" data-testid="endpoints" data-live={live ? 'true' : undefined}>
      <EndpointSelector options={options} current={current} hrefFor={hrefFor} />
      {unknownName !== null ? (
        <p className="endpoint-missing muted" role="status">
          This run has no requests named “<span className="endpoint-name" title={unknownName}>{unknownName}</span>”: showing all requests.
        </p>
      ) : null}
      {summary ? <EndpointsSummary view={summary} parameter={detail.run.parameter} current={current} hrefFor={hrefFor} live={live} /> : null}
      {multiples ? <EndpointMultiples view={multiples} parameter={detail.run.parameter} current={current} hrefFor={hrefFor} /> : null}
    </div>
  );
}
