import { describe, expect, it } from 'vitest';
import { Dictionary, Float64, Int32, Int8, makeData, RecordBatch, RecordBatchReader, RecordBatchStreamWriter, Schema, Field, Struct, Table, Uint16, Uint32, Utf8, tableToIPC, vectorFromArray, type Data, type DataType, type Vector } from 'apache-arrow';
import { MAX_EVENT_NAME_LENGTH } from '@kneeboard/contracts';
import { encodeArrowColumnsUtf8Names } from '../src/testing.ts';
import { BatchRejected, decodeArrowBatch, decodeJsonBatch, distinctNames, encodeArrowColumns, namesOf, type EventBounds } from '../src/index.ts';

const T0 = 1_800_000_000_000;
const bounds: EventBounds = { tsMin: T0 - 60_000, tsMax: T0 + 60_000 };
const json = (name: unknown) => ({
  batch_id: 'b1',
  agent_id: 'a1',
  level: [1, 1, 1, 1],
  ts_ms: [T0, T0 + 1, T0 + 2, T0 + 3],
  latency_ms: [1, 2, 3, 4],
  compute_ms: [null, null, null, null],
  queue_ms: [null, null, null, null],
  status: [200, 200, 200, 200],
  name,
});

function refused(run: () => unknown): BatchRejected {
  try {
    run();
  } catch (err) {
    if (err instanceof BatchRejected) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

const vec = (values: unknown[], type: DataType) => vectorFromArray(values, type);
function arrow(name: Vector | undefined): Uint8Array {
  const cols: Record<string, Vector> = {
    level: vec([1, 1, 1, 1], new Float64()),
    ts_ms: vec([T0, T0 + 1, T0 + 2, T0 + 3], new Float64()),
    latency_ms: vec([1, 2, 3, 4], new Float64()),
    compute_ms: vec([null, null, null, null], new Float64()),
    queue_ms: vec([null, null, null, null], new Float64()),
    status: vec([200, 200, 200, 200], new Int32()),
  };
  if (name) cols.name = name;
  return tableToIPC(new Table(cols), 'stream');
}

describe('event names in a JSON batch', () => {
  it('are dictionary-coded, each distinct name once; null and "" are no name', () => {
    const c = decodeJsonBatch(json(['search', 'cart', 'search', null]), bounds).columns;
    expect(namesOf(c)).toEqual(['search', 'cart', 'search', '']);
    expect(c.name!.values.filter((v) => v !== '')).toEqual(['search', 'cart']);
    expect([...distinctNames(c.name)]).toEqual(['search', 'cart']);
  });

  it('leave no name column when no request has a name, as a batch without the field', () => {
    expect(decodeJsonBatch(json(['', null, '', '']), bounds).columns.name).toBeUndefined();
    expect(decodeJsonBatch(json(undefined), bounds).columns.name).toBeUndefined();
    expect(decodeJsonBatch(json(null), bounds).columns.name).toBeUndefined();
  });

  it('keep a name of exactly the limit and non-ASCII text as written', () => {
    const long = 'x'.repeat(MAX_EVENT_NAME_LENGTH);
    expect(namesOf(decodeJsonBatch(json([long, 'GET /Straße/{id}', ' padded ', 'a']), bounds).columns)).toEqual([long, 'GET /Straße/{id}', ' padded ', 'a']);
  });

  it.each([
    ['too long a name', ['a', 'x'.repeat(MAX_EVENT_NAME_LENGTH + 1), 'b', 'c'], 'name[1]', /at most 200 characters/],
    ['a line break', ['a', 'b', 'GET /\n', 'c'], 'name[2]', /control character U\+000A/],
    ['an escape sequence', ['\u001b[31mred', 'b', 'c', 'd'], 'name[0]', /control character U\+001B/],
    ['a bidi override', ['a', 'b', 'c', 'x\u202ey'], 'name[3]', /bidirectional/],
    ['a name of spaces', ['a', '   ', 'c', 'd'], 'name[1]', /no visible character/],
    ['a number', ['a', 7, 'c', 'd'], 'name[1]', /expected a string or null/],
    ['a name column that is not an array', 'search', 'name', /expected an array/],
    ['a name column of another length', ['a'], 'name', /has 1 entries but level has 4/],
  ])('refuse %s, naming %s', (_what, name, field, message) => {
    const err = refused(() => decodeJsonBatch(json(name), bounds));
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });

  it('name a repeated bad name once, at its first request', () => {
    const err = refused(() => decodeJsonBatch(json(['a\u0000', 'a\u0000', 'a\u0000', 'ok']), bounds));
    expect(err.issues.map((i) => i.field)).toEqual(['name[0]']);
  });
});

describe('event names in an Arrow batch', () => {
  it('read from a utf8 column, nulls as no name, ASCII and not', () => {
    const { columns } = decodeArrowBatch(arrow(vec(['search', null, 'Straße', 'search'], new Utf8())), bounds);
    expect(namesOf(columns)).toEqual(['search', '', 'Straße', 'search']);
  });

  it('round-trip through the canonical encoding, which is then passed on as it is', () => {
    const { columns } = decodeArrowBatch(arrow(vec(['b', 'a', '', 'b'], new Utf8())), bounds);
    const bytes = encodeArrowColumns(columns);
    const again = decodeArrowBatch(bytes, bounds);
    expect(again.canonical).toBe(true);
    expect(namesOf(again.columns)).toEqual(['b', 'a', '', 'b']);
    expect(Array.from(again.columns.latency_ms)).toEqual([1, 2, 3, 4]);
    // Deterministic: the same events, the same bytes.
    expect(encodeArrowColumns(again.columns)).toEqual(bytes);
  });

  it('a batch without names encodes as it always did: six columns, no name column', () => {
    const { columns } = decodeArrowBatch(arrow(undefined), bounds);
    expect(columns.name).toBeUndefined();
    expect(decodeArrowBatch(encodeArrowColumns(columns), bounds).canonical).toBe(true);
    // A name column holding no name is stored as no names: not canonical, so re-encoded without it.
    const empty = decodeArrowBatch(arrow(vec(['', null, '', ''], new Utf8())), bounds);
    expect(empty.columns.name).toBeUndefined();
    expect(empty.canonical).toBe(false);
  });

  it('refuse a name column that is not utf8, naming it', () => {
    const err = refused(() => decodeArrowBatch(arrow(vec([1, 2, 3, 4], new Int32())), bounds));
    expect(err.field).toBe('name');
    expect(err.message).toMatch(/expected a utf8/);
  });

  it('refuse too long a name and a control character, naming the entry', () => {
    expect(refused(() => decodeArrowBatch(arrow(vec(['a', 'b', 'c', 'y'.repeat(201)], new Utf8())), bounds)).field).toBe('name[3]');
    expect(refused(() => decodeArrowBatch(arrow(vec(['a', 'b\u0007', 'c', 'd'], new Utf8())), bounds)).field).toBe('name[1]');
  });

  it('refuse bytes that are not UTF-8, naming the entry', () => {
    const bytes = new Uint8Array([0x61, 0xff, 0xfe, 0x62]);
    const name = makeData({ type: new Utf8(), length: 4, nullCount: 0, valueOffsets: new Int32Array([0, 1, 3, 4, 4]), data: bytes });
    const err = refused(() => decodeArrowBatch(withNameData(name), bounds));
    expect(err.field).toBe('name[1]');
    expect(err.message).toMatch(/not valid UTF-8/);
  });

  it('refuse string offsets that point outside their bytes, naming the column', () => {
    const name = makeData({ type: new Utf8(), length: 4, nullCount: 0, valueOffsets: new Int32Array([0, 1, 2, 3, 4]), data: new Uint8Array([0x61, 0x62, 0x63, 0x64]) });
    const bytes = withNameData(name);
    // The last offset (4) is the only int32 4 right after 0,1,2,3 in the body: patch it to 4000.
    const at = findInt32Run(bytes, [0, 1, 2, 3, 4]) + 16;
    new DataView(bytes.buffer, bytes.byteOffset).setInt32(at, 4000, true);
    const err = refused(() => decodeArrowBatch(bytes, bounds));
    expect(err.field).toBe('name');
    expect(err.message).toMatch(/string offsets are broken at entry 4/);
  });
});

describe('event names dictionary-coded in an Arrow batch (what the SDK sends)', () => {
  /** A dictionary-coded name column: `indices` (null for none) into `entries`. */
  const coded = (entries: Array<string | null>, indices: Array<number | null>, indexType: Int32 | Int8 = new Int32()) =>
    makeData({
      type: new Dictionary(new Utf8(), indexType, 0),
      length: indices.length,
      nullCount: indices.filter((i) => i === null).length,
      nullBitmap: indices.some((i) => i === null) ? new Uint8Array([indices.reduce<number>((m, v, k) => (v === null ? m : m | (1 << k)), 0)]) : undefined,
      data: indexType instanceof Int8 ? Int8Array.from(indices, (i) => i ?? 0) : Int32Array.from(indices, (i) => i ?? 0),
      dictionary: vectorFromArray(entries, new Utf8()),
    });

  it('is what the canonical encoding writes: each name once, four bytes a request, passed on as it came', () => {
    const { columns } = decodeArrowBatch(arrow(vec(['GET /search/{q}', 'POST /cart', 'GET /search/{q}', 'GET /search/{q}'], new Utf8())), bounds);
    const bytes = encodeArrowColumns(columns);
    const again = decodeArrowBatch(bytes, bounds);
    expect(again.canonical).toBe(true);
    expect(namesOf(again.columns)).toEqual(['GET /search/{q}', 'POST /cart', 'GET /search/{q}', 'GET /search/{q}']);
    // 'GET /search/{q}' is in the stream once, not once per request.
    const text = Buffer.from(bytes).toString('latin1');
    expect(text.split('GET /search/{q}').length - 1).toBe(1);
  });

  it('and the plain utf8 form of the same batch decodes to the same names, passed on as it came too', () => {
    const { columns } = decodeArrowBatch(arrow(vec(['b', 'a', '', 'b'], new Utf8())), bounds);
    const utf8 = decodeArrowBatch(encodeArrowColumnsUtf8Names(columns), bounds);
    expect(utf8.canonical).toBe(true);
    expect(namesOf(utf8.columns)).toEqual(['b', 'a', '', 'b']);
    expect(encodeArrowColumnsUtf8Names(columns).length).toBeGreaterThan(0);
  });

  it('reads any signed index width, nulls and the empty entry as no name, duplicate entries as one name', () => {
    const { columns, canonical } = decodeArrowBatch(withNameData(coded(['', 'a', 'b', 'a'], [1, null, 3, 0], new Int8())), bounds);
    expect(namesOf(columns)).toEqual(['a', '', 'a', '']);
    expect([...distinctNames(columns.name)]).toEqual(['a']);
    // int8 indices are not the canonical int32: re-encoded, as a numeric column of another width is.
    expect(canonical).toBe(false);
  });

  it('passes int32 indices into a dictionary with no null entry on as they came; a null entry is re-encoded', () => {
    expect(decodeArrowBatch(withNameData(coded(['x', 'y'], [0, 1, 1, 0]), 'uint16'), bounds).canonical).toBe(true);
    const withNull = decodeArrowBatch(withNameData(coded(['x', null], [0, 1, 1, 0]), 'uint16'), bounds);
    expect(namesOf(withNull.columns)).toEqual(['x', '', '', 'x']);
    expect(withNull.canonical).toBe(false);
  });

  it('writes each value once however often the columns repeat it, and passes on only a dictionary without repeats', () => {
    // Two blocks joined keep both lists: '' and 'a' twice. ClickHouse refuses a dictionary with a value twice.
    const { columns } = decodeArrowBatch(arrow(vec(['a', 'b', 'a', 'b'], new Utf8())), bounds);
    const repeated = { ...columns, name: { values: ['', 'a', 'b', '', 'a'], index: new Uint32Array([4, 2, 1, 3]) } };
    const bytes = encodeArrowColumns(repeated);
    const entries = RecordBatchReader.from(bytes).readAll()[0]!.getChild('name')!.data[0]!.dictionary!.toArray();
    expect(entries).toEqual(['', 'a', 'b']);
    const again = decodeArrowBatch(bytes, bounds);
    expect(again.canonical).toBe(true);
    expect(namesOf(again.columns)).toEqual(['a', 'b', 'a', '']);
    // Sent by someone else with a repeat, or with null beside '': read, but re-encoded before storage.
    for (const entries of [['x', 'y', 'x'], ['', 'x', null]]) {
      const got = decodeArrowBatch(withNameData(coded(entries, [0, 1, 2, 1]), 'uint16'), bounds);
      expect(got.canonical).toBe(false);
      expect(decodeArrowBatch(encodeArrowColumns(got.columns), bounds).canonical).toBe(true);
    }
  });

  it('refuses an index outside the dictionary, naming the request: ClickHouse must never be handed it', () => {
    for (const bad of [2, -1]) {
      const err = refused(() => decodeArrowBatch(withNameData(coded(['x', 'y'], [0, 1, bad, 0])), bounds));
      expect(err.field).toBe('name[2]');
      expect(err.message).toMatch(new RegExp(`refers to dictionary entry ${bad}; the dictionary has 2`));
    }
  });

  it('refuses a bad name in the dictionary at its first request, once; an unused one too, naming the column', () => {
    const err = refused(() => decodeArrowBatch(withNameData(coded(['ok', 'b\u0007'], [0, 1, 1, 1])), bounds));
    expect(err.issues.map((i) => i.field)).toEqual(['name[1]']);
    expect(err.message).toMatch(/control character U\+0007/);
    expect(refused(() => decodeArrowBatch(withNameData(coded(['ok', 'y'.repeat(201)], [0, 0, 0, 0])), bounds)).field).toBe('name');
  });

  it('refuses a dictionary of anything but utf8, or with unsigned indices, naming the column', () => {
    const ints = makeData({ type: new Dictionary(new Int32(), new Int32(), 0), length: 4, nullCount: 0, data: new Int32Array(4), dictionary: vectorFromArray([7], new Int32()) });
    const unsigned = makeData({ type: new Dictionary(new Utf8(), new Uint32(), 0), length: 4, nullCount: 0, data: new Uint32Array(4), dictionary: vectorFromArray(['a'], new Utf8()) });
    for (const name of [ints, unsigned]) {
      const err = refused(() => decodeArrowBatch(withNameData(name as Data), bounds));
      expect(err.field).toBe('name');
      expect(err.message).toMatch(/expected a utf8 \(string\) column or a dictionary of utf8/);
    }
  });

  it('refuses a second dictionary batch (a replacement or a delta): one batch, one set of names', () => {
    const one = decodeArrowBatch(withNameData(coded(['x', 'y'], [0, 1, 1, 0]), 'uint16'), bounds).columns;
    const other = { ...one, name: { values: ['x', 'y', 'z'], index: new Uint32Array([2, 2, 0, 1]) } };
    // Two record batches whose dictionaries differ: the writer sends the second as a delta or a replacement.
    const [a, b] = [one, other].map((c) => RecordBatchReader.from(encodeArrowColumns(c)).readAll()[0]!);
    const bytes = RecordBatchStreamWriter.writeAll([a!, b!]).toUint8Array(true);
    const err = refused(() => decodeArrowBatch(bytes, bounds));
    expect(err.field).toBe('name');
    expect(err.message).toMatch(/delta dictionary batches are not supported|a second dictionary batch/);
  });

  it("refuses dictionary offsets that point outside their bytes, naming the column", () => {
    const bytes = withNameData(coded(['ab', 'cd', 'ef'], [0, 1, 2, 0]));
    // The dictionary's offsets 0,2,4,6: patch the last to 6000.
    const at = findInt32Run(bytes, [0, 2, 4, 6]) + 12;
    new DataView(bytes.buffer, bytes.byteOffset).setInt32(at, 6000, true);
    const err = refused(() => decodeArrowBatch(bytes, bounds));
    expect(err.field).toBe('name');
    expect(err.message).toMatch(/dictionary's string offsets are broken at entry 3/);
  });
});

/** The four-event batch with `name` as given, as one record batch. */
function withNameData(name: Data, status: 'int32' | 'uint16' = 'int32'): Uint8Array {
  const f64 = (values: number[]) => makeData({ type: new Float64(), length: 4, nullCount: 0, data: new Float64Array(values) });
  const fields = ['level', 'ts_ms', 'latency_ms', 'compute_ms', 'queue_ms'].map((n) => new Field(n, new Float64(), false));
  const statusData = status === 'uint16' ? makeData({ type: new Uint16(), length: 4, nullCount: 0, data: new Uint16Array([200, 200, 200, 200]) }) : makeData({ type: new Int32(), length: 4, nullCount: 0, data: new Int32Array([200, 200, 200, 200]) });
  const schema = new Schema([...fields, new Field('status', statusData.type, false), new Field('name', name.type, false)]);
  const children = [f64([1, 1, 1, 1]), f64([T0, T0, T0, T0]), f64([1, 2, 3, 4]), f64([0, 0, 0, 0]), f64([0, 0, 0, 0]), statusData, name];
  const struct = makeData({ type: new Struct(schema.fields), length: 4, nullCount: 0, children: children as Data[] });
  return RecordBatchStreamWriter.writeAll([new RecordBatch(schema, struct)]).toUint8Array(true);
}

function findInt32Run(bytes: Uint8Array, run: number[]): number {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + run.length * 4 <= bytes.length; at += 4) if (run.every((v, i) => dv.getInt32(at + 4 * i, true) === v)) return at;
  throw new Error('run not found');
}
