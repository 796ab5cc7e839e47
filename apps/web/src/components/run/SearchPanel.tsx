import type { SearchView } from '../../lib/search-view.ts';
import './search.css';

/**
 * A `--search` run's search as it goes: the levels tried in the order they ran, each with its
 * verdict in words (the colour only repeats it), the bracket's two ends marked, the current best
 * answer and what comes next (or why it stopped). Updated with every live snapshot.
 */
export function SearchPanel({ view }: { view: SearchView }) {
  return (
    <section className="panel search-panel" data-testid="search" data-done={view.done} aria-label="Capacity search">
      <h2 className="search-title">
        Search <span className="muted small">{view.settings}</span>
      </h2>
      <p className="search-best" data-testid="search-best" aria-live="polite">
        Best so far: {view.best}
      </p>
      <ol className="search-levels" data-testid="search-levels" aria-label="Levels tried, in order">
        {view.chips.map((c, i) => (
          <li key={`${c.level}-${i}`} className={`search-level search-${c.judgement}`} data-level={c.level} data-judgement={c.judgement} data-end={c.end ?? undefined}>
            <span className="search-level-name">{c.label}</span>
            <span className="search-level-verdict">{c.verdict}</span>
            <span className="search-level-qps muted">{c.qps}</span>
            {c.end !== null ? <span className="search-level-end">{c.end === 'holds' ? 'last that holds' : 'upper bound'}</span> : null}
          </li>
        ))}
      </ol>
      <p className="small" data-testid="search-bracket">
        Bracket: {view.bracket}
      </p>
      <p className="small muted" data-testid="search-status">
        {view.status}
      </p>
    </section>
  );
}
