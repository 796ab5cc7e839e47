export { startDemoTarget, type DemoTarget, type DemoTargetStats } from './demo-target.ts';
export { DEMO_TARGET_DEFAULTS, type DemoTargetOptions } from './options.ts';
