/** The runs list filter lives in the URL query (`/?service=checkout&release=v2`), so a filtered list is a link. */

export interface RunsFilter {
  service?: string;
  release?: string;
}

type SearchParams = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  const trimmed = v?.trim();
  return trimmed ? trimmed : undefined;
}

export function parseRunsFilter(params: SearchParams): RunsFilter {
  const filter: RunsFilter = {};
  const service = first(params.service);
  const release = first(params.release);
  if (service) filter.service = service;
  if (release) filter.release = release;
  return filter;
}

/** `?service=…&release=…` (empty when unfiltered), in a stable order. */
export function runsFilterQuery(filter: RunsFilter): string {
  const q = new URLSearchParams();
  if (filter.service) q.set('service', filter.service);
  if (filter.release) q.set('release', filter.release);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Distinct non-empty values, sorted, always including the selected one (it may have no runs yet). */
export function filterOptions(values: ReadonlyArray<string>, selected: string | undefined): string[] {
  const set = new Set(values.filter((v) => v !== ''));
  if (selected) set.add(selected);
  return [...set].sort((a, b) => a.localeCompare(b));
}
