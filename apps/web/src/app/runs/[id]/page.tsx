import { RunId, type RunDetail } from '@kneeboard/contracts';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { ApiErrorNotice } from '../../../components/common/ApiErrorNotice.tsx';
import { RunAgents } from '../../../components/run/RunAgents.tsx';
import { RunView } from '../../../components/run/RunView.tsx';
import { ApiUnavailableError, getLevelDetail, getRun } from '../../../lib/api.ts';
import { parseLevelParam } from '../../../lib/level-detail.ts';
import { readOnlyViewer } from '../../../lib/server-credentials.ts';
import { parseRunView, type SearchParams } from '../../../lib/view-state.ts';

type Params = Promise<{ id: string }>;

/** One request per render, shared by the metadata and the page. */
const loadRun = cache(async (id: string): Promise<RunDetail | ApiUnavailableError | null> => {
  if (!RunId.safeParse(id).success) return null;
  try {
    return await getRun(id);
  } catch (err) {
    if (err instanceof ApiUnavailableError) return err;
    throw err;
  }
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const result = await loadRun((await params).id);
  if (result === null || result instanceof ApiUnavailableError) return { title: 'Run' };
  return { title: `${result.run.service} ${result.run.release}${result.run.name ? ` · ${result.run.name}` : ''}` };
}

export default async function RunPage({ params, searchParams }: { params: Params; searchParams: Promise<SearchParams> }) {
  const result = await loadRun((await params).id);
  if (result === null) notFound();
  if (result instanceof ApiUnavailableError) return <ApiErrorNotice message={result.message} apiUrl={result.apiUrl} />;
  const query = await searchParams;
  // `?level=8` opens that level's panel, drawn with the first render like the rest of a shared link.
  const level = parseLevelParam(query);
  const levelDetail = level === null ? undefined : await getLevelDetail(result.run.id, level).catch(() => undefined); // the panel fetches again in the browser and shows why it failed
  // Keyed by run so navigating between runs starts a fresh live subscription.
  // The toggles come from the URL (`?metrics=p50,p90&x=log&y=log&fit=0&levels=4-64`), so a link shows this exact view.
  const readOnly = await readOnlyViewer();
  return <><RunView key={result.run.id} initial={result} view={parseRunView(result.run.id, query)} level={level} levelDetail={levelDetail} readOnly={readOnly} /><RunAgents runId={result.run.id} /></>;
}
