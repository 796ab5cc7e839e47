import {
  DataType,
  Dictionary,
  Float64,
  Int32,
  Int,
  makeData,
  Precision,
  RecordBatch,
  RecordBatchReader,
  RecordBatchStreamWriter,
  Schema,
  Field,
  Struct,
  Uint16,
  Utf8,
  vectorFromArray,
  type Data,
  type Float,
} from 'apache-arrow';
import { EVENT_COLUMNS, EVENT_NAME_COLUMN, MAX_BATCH_EVENTS, NULLABLE_EVENT_COLUMNS, type EventColumnName } from '@kneeboard/contracts';
import { arrowStructureProblem, nameDictionary } from './arrow-structure.ts';
import { BatchRejected, IssueList } from './batch-error.ts';
import { checkColumn, checkEvents } from './check-column.ts';
import type { EventColumns, EventNames } from './columns.ts';
import { NameDictionary } from './names.ts';
import { COLUMN_RULES, tsRule, type EventBounds } from './rules.ts';

type NumericData = Data<Int | Float>;

/** Reads every record batch of an IPC stream; a stream that ends early or is not Arrow is a 400. */
function readBatches(bytes: Uint8Array): { schema: Schema; batches: RecordBatch[] } {
  // The stream's own lengths are checked first: apache-arrow trusts them, ClickHouse does not.
  const broken = arrowStructureProblem(bytes);
  if (broken) throw new BatchRejected([broken]);
  try {
    const reader = RecordBatchReader.from(bytes).open();
    if (!reader.isStream()) throw new Error('expected the IPC stream format, not the file format');
    const schema = reader.schema as Schema | undefined;
    if (!schema) throw new Error('no schema message');
    const batches: RecordBatch[] = [];
    for (const batch of reader) batches.push(batch);
    // A stream cut short loses its last record batch silently; its declared end must be there.
    if (!endsWithEos(bytes)) throw new Error('the stream does not end with an end-of-stream marker');
    return { schema, batches };
  } catch (err) {
    if (err instanceof BatchRejected) throw err;
    throw new BatchRejected([{ field: 'body', message: `not a readable Arrow IPC stream: ${(err as Error).message}` }]);
  }
}

/** An IPC stream ends with the end-of-stream marker 0xFFFFFFFF 0x00000000 (pyarrow and arrow-js write it on close). */
function endsWithEos(bytes: Uint8Array): boolean {
  const n = bytes.length;
  if (n < 8) return false;
  const tail = new DataView(bytes.buffer, bytes.byteOffset + n - 8, 8);
  return tail.getUint32(0, true) === 0xffffffff && tail.getUint32(4, true) === 0;
}

function schemaIssues(batches: RecordBatch[], fields: ReadonlyArray<Field>, issues: IssueList): void {
  const names = new Set(fields.map((f) => f.name));
  for (const name of EVENT_COLUMNS) {
    const field = fields.find((f) => f.name === name);
    if (!field) issues.add(name, 'required column missing from the Arrow schema');
    else if (name === 'status' ? !DataType.isInt(field.type) : !DataType.isInt(field.type) && !DataType.isFloat(field.type)) {
      issues.add(name, `expected ${name === 'status' ? 'an integer' : 'a float64 (or other numeric)'} column, got ${String(field.type)}`);
    }
  }
  const nameField = fields.find((f) => f.name === EVENT_NAME_COLUMN);
  if (nameField && !DataType.isUtf8(nameField.type) && !nameDictionary(nameField)) {
    issues.add(EVENT_NAME_COLUMN, `expected a utf8 (string) column or a dictionary of utf8 with signed integer indices, got ${String(nameField.type)}`);
  }
  for (const name of names) {
    if (!(EVENT_COLUMNS as readonly string[]).includes(name) && name !== EVENT_NAME_COLUMN) {
      issues.add(name, `unknown column; expected only ${EVENT_COLUMNS.join(', ')} and the optional ${EVENT_NAME_COLUMN}`);
    }
  }
  const rows = batches.reduce((s, b) => s + b.numRows, 0);
  if (rows === 0) issues.add('level', 'a batch needs at least one event');
  if (rows > MAX_BATCH_EVENTS) issues.add('level', `at most ${MAX_BATCH_EVENTS} events per batch`);
}

/** The decoded columns, and whether the stream was already the canonical encoding (then it can be stored as is). */
export interface ArrowDecoded {
  columns: EventColumns;
  canonical: boolean;
}

/**
 * Decodes an Arrow IPC stream into typed columns, converting any integer or float width (a NaN
 * in compute_ms/queue_ms reads as null), and checks each column in one tight pass. Throws
 * BatchRejected naming the column (or entry) at fault: nothing of a bad batch is kept. Float64
 * columns of a single record batch are used in place, not copied.
 */
export function decodeArrowColumns(bytes: Uint8Array, bounds: EventBounds): EventColumns {
  return decodeArrowBatch(bytes, bounds).columns;
}

export function decodeArrowBatch(bytes: Uint8Array, bounds: EventBounds): ArrowDecoded {
  const { schema, batches } = readBatches(bytes);
  const issues = new IssueList();
  schemaIssues(batches, schema.fields, issues);
  issues.throwIfAny();

  const n = batches.reduce((s, b) => s + b.numRows, 0);
  const ts = tsRule(bounds);
  const out: Partial<Record<EventColumnName, Float64Array>> = {};
  for (const name of EVENT_COLUMNS) {
    const chunks = batches.map((b) => b.getChild(name)!.data as NumericData[]).flat();
    const values = asFloat64(chunks, n);
    checkColumn(values, name === 'ts_ms' ? ts : COLUMN_RULES[name], name, issues);
    out[name] = values;
    if (issues.full) break;
  }
  issues.throwIfAny();
  const columns: EventColumns = {
    length: n,
    level: out.level!,
    ts_ms: out.ts_ms!,
    latency_ms: out.latency_ms!,
    compute_ms: out.compute_ms!,
    queue_ms: out.queue_ms!,
    status: toUint16(out.status!),
  };
  checkEvents(columns, bounds, issues);
  const nameField = schema.fields.find((f) => f.name === EVENT_NAME_COLUMN);
  const nameChunks = nameField ? batches.map((b) => b.getChild(EVENT_NAME_COLUMN)!.data).flat() : [];
  const coded = nameField !== undefined && nameDictionary(nameField) !== null;
  const codedNames = coded ? readCodedNames(nameChunks as Data<Dictionary<Utf8>>[], n, issues) : undefined;
  const name = !nameField ? undefined : codedNames ? codedNames.names : readNames(nameChunks as Data<Utf8>[], n, issues);
  issues.throwIfAny();
  // A name column with no name in it is stored as a batch without one: re-encoded, not passed on.
  // A dictionary with a null or a repeated entry is re-encoded too: ClickHouse refuses a dictionary
  // with duplicate values ("Arrow dictionary contains duplicate values"), and '' and null are one.
  const canonical = batches.length === 1 && sameSchema(schema, name !== undefined) && (codedNames === undefined || codedNames.distinct);
  return { columns: name ? { ...columns, name } : columns, canonical };
}

/**
 * A dictionary-coded name column (indices into strings sent once): each dictionary entry decoded
 * and checked once, as a new name is on the utf8 path; then a row costs an index check and a
 * copy — no bytes of it are read. An index outside the dictionary is refused as `name[i]` (the
 * same bytes go on to ClickHouse, which must never be handed one); a bad entry as `name[i]` at the
 * first request that uses it, like a bad utf8 name.
 */
function readCodedNames(chunks: Data<Dictionary<Utf8>>[], n: number, issues: IssueList): { names: EventNames | undefined; distinct: boolean } {
  const dict = new NameDictionary(n);
  // One dictionary for the stream (the structure check allows one): every chunk refers to it.
  const entries = chunks[0]?.dictionary;
  if (!entries) return { names: undefined, distinct: true };
  const size = entries.length;
  const codes = new Int32Array(size);
  // Whether every entry is a different name (null counting as ''): only then can the bytes go on as they are.
  const codesSeen = new Set<number>();
  let distinct = entries.nullCount === 0;
  const problems = new Map<number, string>();
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let k = 0;
  for (const data of entries.data) {
    const offsets = data.valueOffsets;
    const bytes = data.values;
    const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
    for (let i = 0; i < data.length; i++, k++) {
      const bit = data.offset + i;
      if (bitmap && (bitmap[bit >> 3]! & (1 << (bit & 7))) === 0) continue;
      let value: string;
      try {
        value = utf8.decode(bytes.subarray(offsets[bit]!, offsets[bit + 1]!));
      } catch {
        problems.set(k, 'is not valid UTF-8');
        continue;
      }
      const code = dict.codeOf(value);
      if (typeof code === 'string') problems.set(k, code);
      else {
        codes[k] = code;
        if (codesSeen.has(code)) distinct = false;
        codesSeen.add(code);
      }
    }
  }
  let at = 0;
  for (const data of chunks) {
    const indices = data.values as Int32Array | Int16Array | Int8Array;
    const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
    for (let i = 0; i < data.length; i++, at++) {
      const bit = data.offset + i;
      if (bitmap && (bitmap[bit >> 3]! & (1 << (bit & 7))) === 0) continue;
      const e = indices[bit]!;
      if (e >= 0 && e < size) {
        const code = codes[e]!;
        if (code > 0) dict.index[at] = code;
        else if (problems.has(e)) {
          issues.add(`${EVENT_NAME_COLUMN}[${at}]`, problems.get(e)!);
          problems.delete(e);
          if (issues.full) return { names: undefined, distinct };
        }
        continue;
      }
      issues.add(`${EVENT_NAME_COLUMN}[${at}]`, `refers to dictionary entry ${e}; the dictionary has ${size}`);
      if (issues.full) return { names: undefined, distinct };
    }
  }
  // Every entry is a name by the rules, used or not: the dictionary goes on to ClickHouse whole.
  for (const [entry, problem] of problems) issues.add(EVENT_NAME_COLUMN, `dictionary entry ${entry} ${problem}`);
  return { names: dict.result(), distinct };
}

/**
 * The name column (utf8, null for no name) into its dictionary. Requests repeat a few names, so a
 * row is matched to the names seen so far by its bytes — a hash of them, then a compare — with no
 * string made for it (a string and a Map lookup per row cost 0.67 µs a request, a third of the
 * whole Arrow decode); each distinct name is decoded once, as strict UTF-8 (bad bytes refused
 * naming the entry), and checked by the label rules once.
 */
function readNames(chunks: Data<Utf8>[], n: number, issues: IssueList): EventNames | undefined {
  const dict = new NameDictionary(n);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  // By hash of the bytes: the names seen (where their bytes are, and their code in `dict`).
  const seen = new Map<number, Array<{ bytes: Uint8Array; from: number; length: number; code: number }>>();
  let at = 0;
  for (const data of chunks) {
    const offsets = data.valueOffsets;
    const bytes = data.values;
    const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
    rows: for (let i = 0; i < data.length; i++, at++) {
      const bit = data.offset + i;
      if (bitmap && (bitmap[bit >> 3]! & (1 << (bit & 7))) === 0) continue;
      const from = offsets[bit]!;
      const to = offsets[bit + 1]!;
      const length = to - from;
      if (length === 0) continue;
      // FNV-1a over the bytes.
      let h = 0x811c9dc5;
      for (let k = from; k < to; k++) h = Math.imul(h ^ bytes[k]!, 0x01000193);
      const candidates = seen.get(h);
      if (candidates) {
        for (const c of candidates) {
          if (c.length !== length) continue;
          let k = 0;
          while (k < length && c.bytes[c.from + k] === bytes[from + k]) k++;
          if (k === length) {
            dict.index[at] = c.code;
            continue rows;
          }
        }
      }
      let value: string;
      try {
        value = utf8.decode(bytes.subarray(from, to));
      } catch {
        issues.add(`${EVENT_NAME_COLUMN}[${at}]`, 'is not valid UTF-8');
        if (issues.full) return undefined;
        continue;
      }
      dict.set(at, value, issues);
      if (issues.full) return undefined;
      const entry = { bytes, from, length, code: dict.index[at]! };
      if (candidates) candidates.push(entry);
      else seen.set(h, [entry]);
    }
  }
  return dict.result();
}


/** A checked status column (integers 0–999) as uint16. */
function toUint16(values: Float64Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]!;
  return out;
}

/** One column as float64, null as NaN: in place for a single float64 chunk without nulls, converted otherwise. */
function asFloat64(chunks: NumericData[], n: number): Float64Array {
  const only = chunks.length === 1 ? chunks[0]! : undefined;
  if (only && only.nullCount === 0 && only.values instanceof Float64Array) return only.values.subarray(0, only.length);
  const out = new Float64Array(n);
  let at = 0;
  for (const data of chunks) {
    const values = data.values as ArrayLike<number | bigint>;
    if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
      for (let i = 0; i < data.length; i++) out[at + i] = Number(values[i]);
    } else if (DataType.isFloat(data.type) && (data.type as Float).precision === Precision.HALF) {
      for (let i = 0; i < data.length; i++) out[at + i] = halfToNumber(values[i] as number);
    } else {
      out.set((values as Float64Array).subarray(0, data.length), at);
    }
    const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
    if (bitmap) {
      for (let i = 0, bit = data.offset; i < data.length; i++, bit++) if ((bitmap[bit >> 3]! & (1 << (bit & 7))) === 0) out[at + i] = Number.NaN;
    }
    at += data.length;
  }
  return out;
}

/**
 * A validity bitmap from NaN markers, or undefined when nothing is null. `v !== v` is the NaN test
 * (Number.isNaN here cost ~60 ns a value in the agent's profile); the bitmap is only built when a
 * null was seen, in the same pass from that point on.
 */
function validityOf(values: Float64Array): { bitmap: Uint8Array | undefined; nulls: number } {
  const n = values.length;
  let first = 0;
  while (first < n && values[first] === values[first]) first++;
  if (first === n) return { bitmap: undefined, nulls: 0 };
  const bitmap = new Uint8Array(((n + 63) & ~63) >> 3);
  // Everything before the first NaN is valid: whole bytes at once, then the bits of the last one.
  bitmap.fill(0xff, 0, first >> 3);
  for (let i = first & ~7; i < first; i++) bitmap[i >> 3]! |= 1 << (i & 7);
  let nulls = 0;
  for (let i = first; i < n; i++) {
    const v = values[i]!;
    if (v === v) bitmap[i >> 3]! |= 1 << (i & 7);
    else nulls++;
  }
  return { bitmap, nulls };
}

const NUMERIC_FIELDS = EVENT_COLUMNS.map((name) => new Field(name, name === 'status' ? new Uint16() : new Float64(), NULLABLE_EVENT_COLUMNS.has(name)));
const SCHEMA = new Schema(NUMERIC_FIELDS);
/** The name column as the canonical encoding writes it: int32 indices into utf8 names sent once (dictionary id 0). */
const NAME_TYPE = new Dictionary(new Utf8(), new Int32(), 0);
/** A batch with names: the same columns, then `name` ('' for a request without one). */
const NAMED_SCHEMA = new Schema([...NUMERIC_FIELDS, new Field(EVENT_NAME_COLUMN, NAME_TYPE, false)]);
/** Also stored as it came: names as plain utf8, what clients wrote before the dictionary (and pyarrow by default). */
const NAMED_UTF8_SCHEMA = new Schema([...NUMERIC_FIELDS, new Field(EVENT_NAME_COLUMN, new Utf8(), false)]);

/** The stream's schema is exactly a canonical one (names, order, types; nullability may be stricter). */
function sameSchema(schema: Schema, named: boolean): boolean {
  const same = (want: Schema) =>
    schema.fields.length === want.fields.length && schema.fields.every((f, i) => f.name === want.fields[i]!.name && f.type.toString() === want.fields[i]!.type.toString());
  return named ? same(NAMED_SCHEMA) || same(NAMED_UTF8_SCHEMA) : same(SCHEMA);
}

/**
 * The name column dictionary-coded: a mix has a few names and many requests, so each name's bytes
 * go once and a request costs four bytes — and the API checks a name once, not a request's bytes.
 */
function nameData(names: EventNames, n: number): Data<Dictionary<Utf8, Int32>> {
  const { values, index } = names;
  // ClickHouse refuses a dictionary with a value twice, and `values` may repeat one (two blocks
  // joined keep both lists): each value once, the requests' codes mapped onto them.
  const first = new Map<string, number>();
  const remap = Int32Array.from(values, (v) => {
    const at = first.get(v);
    if (at !== undefined) return at;
    first.set(v, first.size);
    return first.size - 1;
  });
  let indices: Int32Array;
  if (first.size === values.length) indices = index instanceof Uint32Array ? new Int32Array(index.buffer, index.byteOffset, n) : Int32Array.from(index.subarray(0, n));
  else {
    indices = new Int32Array(n);
    for (let i = 0; i < n; i++) indices[i] = remap[index[i]!]!;
  }
  return makeData({ type: NAME_TYPE, length: n, nullCount: 0, data: indices, dictionary: vectorFromArray([...first.keys()], new Utf8()) });
}

/**
 * The canonical Arrow IPC stream of a batch: one record batch, float64 columns (null where NaN
 * marks it in compute_ms/queue_ms), a uint16 status and, when the batch has names, a utf8 `name`. What the SDK sends and what the API hands
 * to ClickHouse; deterministic, so the same events always encode to the same bytes.
 */
export function encodeArrowColumns(c: EventColumns): Uint8Array {
  const children = EVENT_COLUMNS.map((name, i) => {
    const field = SCHEMA.fields[i]!;
    if (name === 'status') return makeData({ type: new Uint16(), length: c.length, data: c.status });
    const values = c[name] as Float64Array;
    const { bitmap, nulls } = NULLABLE_EVENT_COLUMNS.has(name) ? validityOf(values) : { bitmap: undefined, nulls: 0 };
    return makeData({ type: field.type as Float64, length: c.length, nullCount: nulls, data: values, nullBitmap: bitmap });
  }) as Data[];
  const schema = c.name ? NAMED_SCHEMA : SCHEMA;
  if (c.name) children.push(nameData(c.name, c.length));
  const struct = makeData({ type: new Struct(schema.fields), length: c.length, nullCount: 0, children });
  return RecordBatchStreamWriter.writeAll([new RecordBatch(schema, struct)]).toUint8Array(true);
}

/** IEEE 754 half precision → number (Arrow keeps Float16 as raw Uint16). */
function halfToNumber(h: number): number {
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? Number.NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}
