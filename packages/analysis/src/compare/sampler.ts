import betaRandom from '@stdlib/random-base-beta';

/** Seeded uniform and beta draws, so the same comparison always gives the same intervals. */
export interface Sampler {
  uniform(): number;
  beta(alpha: number, beta: number): number;
}

export function createSampler(seed: number): Sampler {
  const beta = betaRandom.factory({ seed: seed >>> 0 || 1 });
  // Uniforms straight from the generator's own Mersenne Twister (raw uint32s, one stream with the
  // beta draws): a Beta(1, 1) draw gives the same distribution at the cost of two gamma draws and
  // their logarithms, which made uniforms most of a comparison's bootstrap time.
  const uint32 = beta.PRNG as () => number;
  return { uniform: () => uint32() / 4_294_967_296, beta: (a, b) => beta(a, b) };
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
