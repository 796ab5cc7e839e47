'use client';

import { createContext, useContext } from 'react';

/**
 * Drag-to-zoom on the level axis. A view that keeps its level range in the URL provides the
 * setter; every curve chart inside it (CurveChartFrame) then lets the user drag across the plot to
 * show only the levels between the two ends. Printed charts (fixed width) do not zoom.
 */
export const LevelZoomContext = createContext<((lo: number, hi: number) => void) | null>(null);

export function useLevelZoom(): ((lo: number, hi: number) => void) | null {
  return useContext(LevelZoomContext);
}

/** Shown while zoomed: back to every level (a button, so the keyboard reaches it), and how to zoom. */
export function ZoomReset({ zoomed, onReset }: { zoomed: boolean; onReset: () => void }) {
  return zoomed ? (
    <button type="button" className="small-button zoom-reset" onClick={onReset} data-testid="zoom-reset" aria-label="Reset zoom: show every level">
      Reset zoom
    </button>
  ) : (
    <span className="muted small zoom-hint" data-testid="zoom-hint">
      drag across a chart to zoom
    </span>
  );
}
