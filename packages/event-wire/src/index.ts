/**
 * @kneeboard/event-wire — the ingest batch on the wire. JSON bodies and Arrow IPC streams are
 * decoded into typed columns and checked column by column in one pass (no object per event);
 * columns are encoded back to one canonical Arrow stream for sending and for ClickHouse.
 */
export { allocateColumns, columnsToArrays, nameAt, namesOf, type DecodedBatch, type EventColumns, type EventNames, type NameIndex } from './columns.ts';
export { distinctNames, eventNameProblem } from './names.ts';
export { BatchRejected, MAX_ISSUES } from './batch-error.ts';
export { ANY_TIME, COLUMN_RULES, SERVER_TIME_TOLERANCE_MS, SERVER_TIME_TOLERANCE_RATIO, serverTimeLimit, type EventBounds } from './rules.ts';
export { decodeJsonBatch } from './json-batch.ts';
export { decodeArrowBatch, decodeArrowColumns, encodeArrowColumns, type ArrowDecoded } from './arrow-batch.ts';
