export { eDivisive, E_DIVISIVE_DEFAULTS, type EDivisiveOptions, type EDivisiveSplit } from './e-divisive.ts';
export { changePoints, CHANGE_POINT_DEFAULTS, type ChangePoint, type ChangePointOptions } from './change-points.ts';
