/** Test support shared by this package's tests and other packages' and apps' tests and benches; not part of the library. */
export { prng } from './prng.ts';
export { calibrationRow, calibrationTrial, simulatedGroup, simulatedRun, CALIBRATION_LEVELS, type CalibrationRow, type NoiseModel, type SimOptions, type TrialOutcome } from './compare-calibration.ts';
export { calibrateChangePoints, type HistoryCalibration, type HistoryScenario } from './history-calibration.ts';
