/**
 * mulberry32: a tiny seeded PRNG, so a test's or benchmark's data set looks random but is the same
 * on every run. The one copy for the whole repository (analysis' curve fixtures, the API's
 * synthetic runs, the web app's fixture API, the benches); a package, so apps and packages alike
 * can import it without an upward dependency.
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
