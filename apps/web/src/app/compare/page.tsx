import type { Metadata } from 'next';
import { CompareProblem } from '../../components/compare/CompareProblem.tsx';
import { CompareView } from '../../components/compare/CompareView.tsx';
import { comparisonPageTitle, loadComparison } from '../../lib/comparison-data.ts';
import { parseCompareView, type SearchParams } from '../../lib/view-state.ts';

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  return { title: await comparisonPageTitle(await searchParams, 'Compare') };
}

export default async function ComparePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const parsed = parseCompareView(await searchParams);
  if (!parsed.ok) return <CompareProblem problem={{ kind: 'invalid', error: parsed.error, empty: parsed.empty }} />;
  const data = await loadComparison(parsed.state);
  if (data.kind !== 'ok') return <CompareProblem problem={data} />;
  return <CompareView details={data.details} stats={data.stats} initial={parsed.state} />;
}
