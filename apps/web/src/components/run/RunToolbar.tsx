'use client';

import { endpointPath, ENDPOINTS, type LevelSelection, type Run } from '@kneeboard/contracts';
import Link from 'next/link';
import { queryString, svgViewPairs, type ChartSettings } from '../../lib/view-state.ts';
import { LevelRangePicker } from '../common/LevelRangePicker.tsx';
import { ZoomReset } from '../zoom/LevelZoom.tsx';
import { ExportMenu } from '../share/ExportMenu.tsx';
import { ShareButton } from '../share/ShareButton.tsx';
import { ShareLinkButton } from '../share/ShareLinkButton.tsx';

/** The run page's view-wide controls: the visible level range, Share, exports, and the way to comparisons. */
export function RunToolbar({
  run,
  path,
  settings,
  levels,
  selection,
  onLevels,
  readOnly = false,
  capacity = { slo: null, line: null },
  endpoints = null,
}: {
  run: Run;
  path: string;
  /** The view's drawing options, carried into the embeddable SVG's URL. */
  settings: ChartSettings;
  levels: number[];
  selection: LevelSelection | null;
  onLevels: (sel: LevelSelection | null) => void;
  /** A share link's reader can neither make links nor list a service's releases (the API would refuse): those buttons are left out. */
  readOnly?: boolean;
  /** The SLOs shown (into the SVG's and CSV's `slo=`, which draw and judge them too) and the capacity line the Markdown carries. */
  capacity?: { slo: string | null; line: string | null };
  /** A run with request names: its Endpoints section for the Markdown (null: a run without names, whose exports stay as they were). */
  endpoints?: { markdown: string | null } | null;
}) {
  const sloPairs: Array<[string, string]> = capacity.slo === null ? [] : [['slo', capacity.slo]];
  const title = `${run.service} ${run.release}${run.name ? ` — ${run.name}` : ''}`;
  return (
    <div className="panel view-toolbar run-toolbar no-print" data-testid="view-toolbar">
      <LevelRangePicker parameter={`${run.parameter} shown`} levels={levels} selection={selection} onChange={onLevels} />
      <ZoomReset zoomed={selection !== null} onReset={() => onLevels(null)} />
      <div className="run-actions">
        {readOnly ? null : (
          <Link className="button" href={`/services/${encodeURIComponent(run.service)}`} title="this service’s releases, to compare this run with another" data-testid="compare-releases">
            Compare releases
          </Link>
        )}
        <ExportMenu
          links={[
            { label: 'CSV · the curve, one row per level', href: `${endpointPath(ENDPOINTS.runCurveCsv, { id: run.id })}${queryString(sloPairs)}` },
            ...(endpoints ? [{ label: 'CSV · each endpoint’s curve, one row per endpoint and level', href: endpointPath(ENDPOINTS.runNamesCsv, { id: run.id }) }] : []),
            { label: 'JSON · the run detail (curve, steps, analysis)', href: endpointPath(ENDPOINTS.getRun, { id: run.id }), fileName: `kneeboard-${run.id}.json` },
            { label: 'Markdown · what each level cost the server', href: endpointPath(ENDPOINTS.getRunCostMarkdown, { id: run.id }) },
            { label: 'SVG · what it costs (cores used, requests/s per core)', href: `${endpointPath(ENDPOINTS.runCostSvg, { id: run.id })}${queryString(svgViewPairs(settings).filter(([k]) => k === 'levels'))}` },
          ]}
          embed={{ imagePath: `${endpointPath(ENDPOINTS.runCurveSvg, { id: run.id })}${queryString([...svgViewPairs(settings), ...sloPairs])}`, viewPath: path, alt: title, caption: capacity.line === null ? undefined : `${capacity.line}.`, markdownAfter: endpoints?.markdown ?? undefined }}
        />
        {readOnly ? null : (
          <>
            <ShareButton path={path} />
            <ShareLinkButton runs={[run.id]} path={path} label={title} />
          </>
        )}
      </div>
    </div>
  );
}
