/** Test support shared by this package's tests and other packages' and apps' tests and benches; not part of the library. */
export { prng } from './prng.ts';
