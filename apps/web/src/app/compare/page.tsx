import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { CompareProblem } from '../../components/compare/CompareProblem.tsx';
import { CompareView } from '../../components/compare/CompareView.tsx';
import { comparisonPageTitle, loadComparison } from '../../lib/comparison-data.ts';
import { readOnlyViewer } from '../../lib/server-credentials.ts';
import { parseLevelParam } from '../../lib/level-detail.ts';
import { parseCompareView, type SearchParams } from '../../lib/view-state.ts';

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  return { title: await comparisonPageTitle(await searchParams, 'Compare') };
}

export default async function ComparePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const parsed = parseCompareView(query);
  // A malformed link or one naming runs that do not exist answers 404 (the segment's not-found page
  // explains); an empty /compare is the page for picking runs, and an API outage says so.
  if (!parsed.ok && !parsed.empty) notFound();
  if (!parsed.ok) return <CompareProblem problem={{ kind: 'invalid', error: parsed.error, empty: parsed.empty }} />;
  const data = await loadComparison(parsed.state);
  if (data.kind === 'missing') notFound();
  if (data.kind !== 'ok') return <CompareProblem problem={data} />;
  return <CompareView details={data.details} sizes={data.sizes} stats={data.stats} initial={parsed.state} slo={data.slo?.text ?? null} level={parseLevelParam(query)} readOnly={await readOnlyViewer()} />;
}
