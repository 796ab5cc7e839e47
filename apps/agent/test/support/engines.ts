/** Every behavioural test of a sweep runs on both engines. */
export const ENGINES = ['node', 'native'] as const;
export type Engine = (typeof ENGINES)[number];
