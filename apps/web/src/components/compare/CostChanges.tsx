import type { CostLines } from '../../lib/compare-capacity.ts';
import { RunSwatch } from './RunSwatch.tsx';

/**
 * What each level's change cost the server, for one head: the API's sentences ("+8% QPS for +31%
 * CPU at 64"), one per level where both sides read CPU, and how they were made. Heads without
 * server metrics on both sides have no such list (the page looks as it did).
 */
export function CostChanges({ lines, headLabel, baseLabel, colour }: { lines: CostLines; headLabel: string; baseLabel: string; colour: string }) {
  return (
    <section className="panel cost-changes" data-testid="cost-changes">
      <h3>
        <RunSwatch colour={colour} dashed={false} /> {headLabel} <span className="muted">vs</span> {baseLabel}
      </h3>
      <ul>
        {lines.sentences.map((s) => (
          <li key={s.level} className={s.notComparable ? 'tone-flagged' : undefined} data-testid="cost-change" data-level={s.level}>
            {s.text}
          </li>
        ))}
      </ul>
      <p className="muted small">{lines.note}</p>
    </section>
  );
}
