import { RunId, type RunDetail } from '@kneeboard/contracts';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { ApiErrorNotice } from '../../../components/common/ApiErrorNotice.tsx';
import { RunAgents } from '../../../components/run/RunAgents.tsx';
import { RunView } from '../../../components/run/RunView.tsx';
import { ApiUnavailableError, getLevelDetail, getNameCurves, getRun } from '../../../lib/api.ts';
import { parseLevelParam } from '../../../lib/level-detail.ts';
import { readOnlyViewer } from '../../../lib/server-credentials.ts';
import { parseNameSetting, parseRunView, type SearchParams } from '../../../lib/view-state.ts';

type Params = Promise<{ id: string }>;

/** One request per render, shared by the metadata and the page; `name`: that request name's curve. */
const loadRun = cache(async (id: string, name?: string): Promise<RunDetail | ApiUnavailableError | null> => {
  if (!RunId.safeParse(id).success) return null;
  try {
    return await getRun(id, name);
  } catch (err) {
    if (err instanceof ApiUnavailableError) return err;
    throw err;
  }
});

/**
 * The run as the URL asks (`?name=` a request name's curve). A name the run does not carry (a
 * stale link) shows the whole run with a line saying so, rather than a missing-run page.
 */
async function loadView(id: string, name: string | null): Promise<{ result: RunDetail | ApiUnavailableError | null; unknownName: string | null }> {
  if (name === null) return { result: await loadRun(id), unknownName: null };
  const named = await loadRun(id, name);
  if (named !== null) return { result: named, unknownName: null };
  const whole = await loadRun(id);
  return { result: whole, unknownName: whole === null ? null : name };
}

export async function generateMetadata({ params, searchParams }: { params: Params; searchParams: Promise<SearchParams> }): Promise<Metadata> {
  const { result } = await loadView((await params).id, parseNameSetting((await searchParams).name));
  if (result === null || result instanceof ApiUnavailableError) return { title: 'Run' };
  return { title: `${result.run.service} ${result.run.release}${result.run.name ? ` · ${result.run.name}` : ''}` };
}

export default async function RunPage({ params, searchParams }: { params: Params; searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const { result, unknownName } = await loadView((await params).id, parseNameSetting(query.name));
  if (result === null) notFound();
  if (result instanceof ApiUnavailableError) return <ApiErrorNotice message={result.message} apiUrl={result.apiUrl} />;
  // `?level=8` opens that level's panel, drawn with the first render like the rest of a shared link.
  const level = parseLevelParam(query);
  const [levelDetail, nameCurves] = await Promise.all([
    level === null ? undefined : getLevelDetail(result.run.id, level).catch(() => undefined), // the panel fetches again in the browser and shows why it failed
    // Every endpoint's curve for the small multiples: only a finished run with names draws them.
    (result.names?.length ?? 0) > 0 && result.run.status !== 'running' ? getNameCurves(result.run.id) : null,
  ]);
  // Keyed by run and request name so navigating between runs, or picking another endpoint, starts afresh (its own curve, its own live subscription).
  // The toggles come from the URL (`?metrics=p50,p90&x=log&y=log&fit=0&levels=4-64`), so a link shows this exact view.
  const readOnly = await readOnlyViewer();
  return <><RunView key={`${result.run.id}:${result.name ?? ''}`} initial={result} unknownName={unknownName} nameCurves={nameCurves} view={parseRunView(result.run.id, query)} level={level} levelDetail={levelDetail} readOnly={readOnly} /><RunAgents runId={result.run.id} /></>;
}
