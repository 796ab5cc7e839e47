/** The repository's one seeded PRNG (src/prng.ts), offered with the rest of the test support. */
export { prng } from '../src/prng.ts';
