export * from './common.ts';
export * from './run.ts';
export * from './step.ts';
export * from './events.ts';
export * from './curve.ts';
export * from './run-detail.ts';
export * from './analysis.ts';
export * from './errors.ts';
