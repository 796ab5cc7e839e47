import betaRandom from '@stdlib/random-base-beta';

/** Seeded uniform and beta draws, so the same comparison always gives the same intervals. */
export interface Sampler {
  uniform(): number;
  beta(alpha: number, beta: number): number;
}

export function createSampler(seed: number): Sampler {
  const beta = betaRandom.factory({ seed: seed >>> 0 || 1 });
  // Beta(1, 1) is the uniform distribution on (0, 1); the generator's own PRNG yields raw uint32s.
  return { uniform: () => beta(1, 1), beta: (a, b) => beta(a, b) };
}

/** A stable seed from strings (FNV-1a), e.g. the compared run ids. */
export function seedFrom(...parts: string[]): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('|')) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
