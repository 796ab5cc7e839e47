import Link from 'next/link';
import { DEFAULT_API_URL } from '@kneeboard/contracts/defaults';
import type { RunsFilter } from '../../lib/runs-filter.ts';

/** What to do when there is nothing to show: start a sweep, or widen the filter. */
export function EmptyState({ filter }: { filter: RunsFilter }) {
  if (filter.service || filter.release) {
    return (
      <div className="panel notice" data-testid="runs-empty">
        <h2>No runs match this filter</h2>
        <p className="muted">
          Nothing for {filter.service ? <code>service={filter.service}</code> : null} {filter.release ? <code>release={filter.release}</code> : null}.{' '}
          <Link href="/">Show all runs</Link>.
        </p>
      </div>
    );
  }
  return (
    <div className="panel notice" data-testid="runs-empty">
      <h2>No runs yet</h2>
      <p>
        A run is one sweep of a service through load levels. Start one from any machine that can reach the service and
        this API; its curve appears here while it runs.
      </p>
      <pre>
        {`pnpm kneeboard sweep --target http://127.0.0.1:8080/ \\
    --levels 1,2,4,8,16,32,64 --duration 10s --warmup 2s \\
    --service my-service --release v1.0.0 --name "first sweep" \\
    --api ${DEFAULT_API_URL}`}
      </pre>
      <p className="muted">
        <code>--levels</code> are the concurrencies to step through; each level runs for <code>--duration</code> after a{' '}
        <code>--warmup</code> that is left out of the curve. <code>./scripts/start.sh</code> starts the API, this dashboard and a demo
        target with a demo sweep.
      </p>
    </div>
  );
}
