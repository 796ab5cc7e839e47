'use client';

import type { RunDetail, RunNameCurves } from '@kneeboard/contracts';
import { useMemo } from 'react';
import { prepareMultiples } from '../../lib/endpoint-multiples.ts';
import { endpointOptions, endpointsSummary } from '../../lib/endpoints-view.ts';
import { EndpointMultiples } from './EndpointMultiples.tsx';
import { EndpointSelector } from './EndpointSelector.tsx';
import { EndpointsSummary } from './EndpointsSummary.tsx';
import './endpoints.css';

/**
 * A run whose requests carry names: the endpoint selector and the endpoints' summary, from the
 * detail the server loaded (the names and their analysis are the run's whatever curve is shown).
 * Nothing for a run without names, so such a run looks as it did before names existed. Not while
 * the run runs: its live updates are the whole run's curve.
 */
export function Endpoints({
  initial,
  unknownName,
  nameCurves = null,
  hrefFor,
}: {
  initial: RunDetail;
  unknownName: string | null;
  /** Every name's curve (`GET /runs/{id}/names`), drawn as small multiples; null: none. */
  nameCurves?: RunNameCurves | null;
  hrefFor: (name: string | null) => string;
}) {
  const options = useMemo(() => endpointOptions(initial.names ?? []), [initial.names]);
  const summary = useMemo(() => (initial.endpoints ? endpointsSummary(initial.endpoints, initial.names ?? []) : null), [initial.endpoints, initial.names]);
  const multiples = useMemo(
    () => (nameCurves && nameCurves.names.length > 0 ? prepareMultiples(nameCurves, initial.endpoints?.saturates_first ?? null, initial.run.parameter) : null),
    [nameCurves, initial.endpoints, initial.run.parameter],
  );
  if (options.length === 0 || initial.run.status === 'running') return null;
  const current = initial.name ?? null;
  return (
    <div className="endpoints" data-testid="endpoints">
      <EndpointSelector options={options} current={current} hrefFor={hrefFor} />
      {unknownName !== null ? (
        <p className="endpoint-missing muted" role="status">
          This run has no requests named “<span className="endpoint-name" title={unknownName}>{unknownName}</span>”: showing all requests.
        </p>
      ) : null}
      {summary ? <EndpointsSummary view={summary} parameter={initial.run.parameter} current={current} hrefFor={hrefFor} /> : null}
      {multiples ? <EndpointMultiples view={multiples} parameter={initial.run.parameter} current={current} hrefFor={hrefFor} /> : null}
    </div>
  );
}
