import type { Metadata } from 'next';
import type { RunSummary } from '@kneeboard/contracts';
import { ApiUnavailableError, listRuns } from '../lib/api.ts';
import { filterOptions, parseRunsFilter } from '../lib/runs-filter.ts';
import { ApiErrorNotice } from '../components/common/ApiErrorNotice.tsx';
import { AutoRefresh } from '../components/runs/AutoRefresh.tsx';
import { EmptyState } from '../components/runs/EmptyState.tsx';
import { RunsFilterForm } from '../components/runs/RunsFilterForm.tsx';
import { RunsTable } from '../components/runs/RunsTable.tsx';

export const metadata: Metadata = { title: 'Runs' };

export default async function RunsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filter = parseRunsFilter(await searchParams);
  const filtered = Boolean(filter.service || filter.release);

  let runs: RunSummary[];
  let all: RunSummary[];
  try {
    // The unfiltered list feeds the filter's options; when nothing is filtered it is the same list.
    const [matching, everything] = await Promise.all([listRuns(filter), filtered ? listRuns({}) : null]);
    runs = matching;
    all = everything ?? matching;
  } catch (err) {
    if (err instanceof ApiUnavailableError) {
      return (
        <>
          <div className="page-title">
            <h1>Runs</h1>
          </div>
          <ApiErrorNotice message={err.message} apiUrl={err.apiUrl} level={2} />
        </>
      );
    }
    throw err;
  }

  const running = runs.filter((r) => r.status === 'running').length;
  return (
    <>
      <div className="page-title">
        <h1>Runs</h1>
        <span className="muted" data-testid="runs-count">
          {runs.length} {runs.length === 1 ? 'run' : 'runs'}
          {running > 0 ? ` · ${running} running` : ''}
        </span>
      </div>
      {all.length > 0 ? (
        <RunsFilterForm
          filter={filter}
          services={filterOptions(
            all.map((r) => r.service),
            filter.service,
          )}
          releases={filterOptions(
            all.filter((r) => !filter.service || r.service === filter.service).map((r) => r.release),
            filter.release,
          )}
        />
      ) : null}
      {runs.length === 0 ? <EmptyState filter={filter} /> : <RunsTable runs={runs} />}
      {/* Faster while a run is drawing its curve; slower otherwise, still catching new runs. */}
      <AutoRefresh active intervalMs={running > 0 ? 3000 : 10000} />
    </>
  );
}
