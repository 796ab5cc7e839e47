/** A short line in the run's colour: dashed for the base, solid for heads, as in the charts. */
export function RunSwatch({ colour, dashed }: { colour: string; dashed: boolean }) {
  return (
    <svg className="run-swatch" width="26" height="10" viewBox="0 0 26 10" aria-hidden>
      <line x1="1" x2="25" y1="5" y2="5" stroke={colour} strokeWidth="2.5" strokeDasharray={dashed ? '7 4' : undefined} />
    </svg>
  );
}

export function RunLegend({
  series,
  knees = false,
  fits = false,
  untrustedFits = 0,
}: {
  /** One entry per group: repeats of a side share its entry. */
  series: ReadonlyArray<{ key: string; label: string; colour: string; dashed: boolean; role: 'base' | 'head'; member?: number }>;
  /** Some run's knee is marked (a triangle above the plot). */
  knees?: boolean;
  /** The fitted USL curves are drawn (dotted). */
  fits?: boolean;
  /** How many of the drawn fits the analysis does not trust (`usl_trusted` false): drawn fainter, said here. */
  untrustedFits?: number;
}) {
  return (
    <>
      {series.filter((s) => (s.member ?? 0) === 0).map((s) => (
        <span key={s.key} className="legend-item" data-testid="run-legend" data-series={s.key}>
          <RunSwatch colour={s.colour} dashed={s.dashed} />
          <span className="legend-text">{s.label}</span>
          {s.role === 'base' ? <span className="muted">base</span> : null}
        </span>
      ))}
      {fits ? (
        <span className="legend-item muted" title="Each run’s fitted Universal Scalability Law curve, in its colour">
          <svg className="run-swatch" width="26" height="10" viewBox="0 0 26 10" aria-hidden>
            <line x1="1" x2="25" y1="5" y2="5" stroke="#5a6472" strokeWidth="2" strokeDasharray="1 4" strokeLinecap="round" />
          </svg>
          USL fits
        </span>
      ) : null}
      {fits && untrustedFits > 0 ? (
        <span className="legend-item muted" data-testid="legend-untrusted-fits" title="The analysis does not trust these fits (too few levels past the knee, or parameters it cannot pin down): open the run for its reason">
          <svg className="run-swatch" width="26" height="10" viewBox="0 0 26 10" aria-hidden>
            <line x1="1" x2="25" y1="5" y2="5" stroke="#5a6472" strokeWidth="2" strokeDasharray="2 5" strokeOpacity="0.45" strokeLinecap="round" />
          </svg>
          {untrustedFits} untrusted fit{untrustedFits === 1 ? '' : 's'} (faint)
        </span>
      ) : null}
      {knees ? (
        <span className="legend-item muted" title="Each run’s knee, in its colour; hover a mark for the run">
          <svg width="12" height="10" viewBox="0 0 12 10" aria-hidden>
            <polygon points="0,1 12,1 6,9" fill="#5a6472" />
          </svg>
          knee
        </span>
      ) : null}
    </>
  );
}
