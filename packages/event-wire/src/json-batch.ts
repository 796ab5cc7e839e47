import { EVENT_COLUMNS, EVENT_NAME_COLUMN, MAX_BATCH_EVENTS, textProblem, type EventColumnName } from '@kneeboard/contracts';
import { IssueList } from './batch-error.ts';
import { checkColumn, checkEvents } from './check-column.ts';
import { allocateColumns, type DecodedBatch, type EventNames } from './columns.ts';
import { NameDictionary } from './names.ts';
import { COLUMN_RULES, tsRule, type EventBounds } from './rules.ts';

function idField(body: Record<string, unknown>, name: 'batch_id' | 'agent_id', issues: IssueList): string {
  const v = body[name];
  if (typeof v !== 'string') issues.add(name, v === undefined ? 'required' : `expected a string, got ${typeof v}`);
  else if (v.length < 1 || v.length > 128) issues.add(name, 'must be 1–128 characters');
  else {
    const problem = textProblem(v);
    if (problem === null) return v;
    issues.add(name, problem);
  }
  return '';
}

/**
 * Checks a parsed JSON batch column by column — one pass over each array, copying into typed
 * arrays as it goes — and returns it decoded, or throws BatchRejected naming the first bad field
 * (`latency_ms[3]`, `queue_ms`…). Unknown top-level fields are ignored, as the contract allows.
 */
export function decodeJsonBatch(body: unknown, bounds: EventBounds): DecodedBatch {
  const issues = new IssueList();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    issues.add('body', 'expected a JSON object with batch_id, agent_id and the event columns');
    issues.throwIfAny();
  }
  const b = body as Record<string, unknown>;
  const batch_id = idField(b, 'batch_id', issues);
  const agent_id = idField(b, 'agent_id', issues);

  const level = b.level;
  const n = Array.isArray(level) ? level.length : 0;
  if (Array.isArray(level) && n === 0) issues.add('level', 'a batch needs at least one event');
  if (n > MAX_BATCH_EVENTS) issues.add('level', `at most ${MAX_BATCH_EVENTS} events per batch`);
  for (const name of EVENT_COLUMNS) {
    const raw = b[name];
    if (!Array.isArray(raw)) issues.add(name, raw === undefined ? 'required' : `expected an array, got ${raw === null ? 'null' : typeof raw}`);
    else if (name !== 'level' && raw.length !== n) issues.add(name, `has ${raw.length} entries but level has ${n}: all arrays must have equal length`);
  }
  const rawNames = b[EVENT_NAME_COLUMN];
  if (rawNames !== undefined && rawNames !== null) {
    if (!Array.isArray(rawNames)) issues.add(EVENT_NAME_COLUMN, `expected an array of strings, got ${typeof rawNames}`);
    else if (rawNames.length !== n) issues.add(EVENT_NAME_COLUMN, `has ${rawNames.length} entries but level has ${n}: all arrays must have equal length`);
  }
  issues.throwIfAny();

  const columns = allocateColumns(n);
  const ts = tsRule(bounds);
  // status is checked as float64 first: a Uint16Array would wrap 70000 or -1 before the check saw it.
  const status = new Float64Array(n);
  for (const name of EVENT_COLUMNS) {
    const out = name === 'status' ? status : (columns[name] as Float64Array);
    copyNumbers(b[name] as unknown[], out, name, issues);
    checkColumn(out, name === 'ts_ms' ? ts : COLUMN_RULES[name], name, issues);
    if (issues.full) break;
  }
  issues.throwIfAny();
  checkEvents(columns, bounds, issues);
  const name = Array.isArray(rawNames) ? readNames(rawNames, issues) : undefined;
  issues.throwIfAny();
  columns.status.set(status);
  return { batch_id, agent_id, columns: name ? { ...columns, name } : columns };
}

/** The optional name column: a string per request, null or '' for none. */
function readNames(raw: unknown[], issues: IssueList): EventNames | undefined {
  const dict = new NameDictionary(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i];
    if (typeof v === 'string') dict.set(i, v, issues);
    else if (v !== null) issues.add(`${EVENT_NAME_COLUMN}[${i}]`, `expected a string or null, got ${typeof v}`);
    if (issues.full) break;
  }
  return dict.result();
}

/** Numbers as they are, null as NaN; anything else is an issue. */
function copyNumbers(raw: unknown[], out: Float64Array, name: EventColumnName, issues: IssueList): void {
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i];
    if (typeof v === 'number') out[i] = v;
    else if (v === null) out[i] = Number.NaN;
    else {
      out[i] = 0;
      issues.add(`${name}[${i}]`, `expected a number, got ${typeof v}`);
      if (issues.full) return;
    }
  }
}
