/** Series colours, in order: distinguishable for common colour-vision deficiencies (Okabe–Ito). */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'] as const;

export function colourFor(index: number): string {
  return PALETTE[index % PALETTE.length] as string;
}
