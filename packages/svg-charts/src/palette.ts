/** Series colours, in order: distinguishable for common colour-vision deficiencies (Okabe–Ito). */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'] as const;

export function colourFor(index: number): string {
  return PALETTE[index % PALETTE.length] as string;
}

/** The cost chart's two lines (cores used, requests/s per core), on the page and in cost.svg. */
export const COST_COLOURS = { cores: '#b5522b', perCore: '#2b6cb0' } as const;
