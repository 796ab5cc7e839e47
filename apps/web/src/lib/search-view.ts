import type { CapacitySearchState, RunStatus } from '@kneeboard/contracts';
import { formatLevel, formatQps } from '@kneeboard/contracts/figures';

export interface SearchChip {
  level: number;
  /** `concurrency 8` */
  label: string;
  judgement: CapacitySearchState['tried'][number]['judgement'];
  /** The verdict in words (never colour alone): `holds`, `breaks — an SLO breaks`, … */
  verdict: string;
  qps: string;
  /** This level is an end of the bracket: the last that holds, or the first that bounds. */
  end: 'holds' | 'breaks' | null;
}

export interface SearchView {
  /** `p50<=100ms, to 5%, at most 1 level past the first break` */
  settings: string;
  /** The current best answer, or why there is none yet. */
  best: string;
  /** `holds at 10, breaks at 11`, or how far the search has got. */
  bracket: string;
  /** The next level being measured, why the search stopped, or that the run ended before it answered. */
  status: string;
  done: boolean;
  chips: SearchChip[];
}

const VERDICT: Record<SearchChip['judgement'], string> = { holds: 'holds', breaks: 'breaks', unclear: 'unclear', skipped: 'skipped' };

/** The run page's Search panel from the search state the API replays (CapacitySearchState): pure, for the component to draw. */
export function prepareSearchView(search: CapacitySearchState, parameter: string, status: RunStatus): SearchView {
  const at = (level: number) => `${parameter} ${formatLevel(level)}`;
  const { holds, breaks } = search.bracket;
  const chips = search.tried.map((t): SearchChip => ({
    level: t.level,
    label: at(t.level),
    judgement: t.judgement,
    verdict: t.bound !== null && t.judgement !== 'breaks' ? `${VERDICT[t.judgement]} — ${t.bound}` : VERDICT[t.judgement],
    qps: `${formatQps(t.qps)} req/s`,
    end: holds?.level === t.level ? 'holds' : breaks?.level === t.level ? 'breaks' : null,
  }));
  const best = search.best ? `${formatQps(search.best.qps)} req/s at ${at(search.best.level)}` : search.tried.length === 0 ? 'nothing measured yet' : 'no level holds yet';
  const bracket =
    holds && breaks ? `holds at ${formatLevel(holds.level)}, bounded at ${formatLevel(breaks.level)}` : breaks ? `bounded at ${formatLevel(breaks.level)}, nothing under it holds` : holds ? `holds up to ${formatLevel(holds.level)}, no bound yet` : 'no bracket yet';
  const statusText = search.done
    ? `Done: ${search.reason}`
    : status === 'running'
      ? `Next: ${search.next === null ? '…' : at(search.next)} — ${search.reason}`
      : `The run ${status === 'aborted' ? 'was aborted' : 'ended'} before the search answered (it would run ${search.next === null ? 'more' : at(search.next)} next)`;
  const named = [
    search.unclear.length > 0 ? `unclear at ${search.unclear.map(formatLevel).join(', ')}` : null,
    search.skipped.length > 0 ? `generator-limited at ${search.skipped.map(formatLevel).join(', ')}` : null,
  ].filter((x): x is string => x !== null);
  const precision = `${Math.round(search.precision * 1000) / 10}%`;
  return {
    settings: `${search.slos.join(', ')} · to ${precision} · at most ${search.max_over} level${search.max_over === 1 ? '' : 's'} past the first break`,
    best,
    bracket: named.length > 0 ? `${bracket}; ${named.join('; ')}` : bracket,
    status: statusText,
    done: search.done,
    chips,
  };
}
