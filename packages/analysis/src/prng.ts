/**
 * mulberry32: a tiny seeded PRNG (uniform in [0, 1)), so a data set or a sequence of picks looks
 * random but is the same on every run with the same seed. The one copy for the whole repository:
 * the agent's weighted request picks, and (through ../testing) analysis' curve fixtures, the API's
 * synthetic runs, the web app's fixture API and the benches.
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
