import type { KneeMarkerSpec } from '../../lib/knee.ts';
import { KNEE_STYLE } from '../../lib/series.ts';

/** A legend entry for the knee line; its title is the knee's reason. */
export function KneeLegend({ marker }: { marker: KneeMarkerSpec | null }) {
  if (marker === null) return null;
  return (
    <span className="legend-item legend-knee" title={marker.title} data-testid="knee-legend">
      <span className="knee-swatch" style={{ borderColor: KNEE_STYLE.color }} />
      <span className="legend-text">{marker.label}</span>
    </span>
  );
}
