import { RunId, type RunDetail } from '@kneeboard/contracts';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { ApiErrorNotice } from '../../../components/common/ApiErrorNotice.tsx';
import { RunView } from '../../../components/run/RunView.tsx';
import { ApiUnavailableError, getRun } from '../../../lib/api.ts';

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

export default async function RunPage({ params }: { params: Params }) {
  const result = await loadRun((await params).id);
  if (result === null) notFound();
  if (result instanceof ApiUnavailableError) return <ApiErrorNotice message={result.message} apiUrl={result.apiUrl} />;
  // Keyed by run so navigating between runs starts a fresh live subscription.
  return <RunView key={result.run.id} initial={result} />;
}
