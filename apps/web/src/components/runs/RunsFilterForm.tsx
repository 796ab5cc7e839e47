import Link from 'next/link';
import type { RunsFilter } from '../../lib/runs-filter.ts';

/** A plain GET form: filtering works without JavaScript and the result is a shareable URL. */
export function RunsFilterForm({ filter, services, releases }: { filter: RunsFilter; services: string[]; releases: string[] }) {
  const filtered = Boolean(filter.service || filter.release);
  return (
    <form className="filters" method="get" action="/" data-testid="runs-filter">
      <label className="field">
        Service
        <select name="service" defaultValue={filter.service ?? ''}>
          <option value="">All services</option>
          {services.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Release
        <select name="release" defaultValue={filter.release ?? ''}>
          <option value="">All releases</option>
          {releases.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary">
        Filter
      </button>
      {filtered ? (
        <Link href="/" className="button">
          Clear
        </Link>
      ) : null}
    </form>
  );
}
