import { describe, expect, it } from 'vitest';
import { Float64, Int32, makeData, RecordBatch, RecordBatchStreamWriter, Schema, Field, Struct, Table, Utf8, tableToIPC, vectorFromArray, type Data, type DataType, type Vector } from 'apache-arrow';
import { MAX_EVENT_NAME_LENGTH } from '@kneeboard/contracts';
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

/** The four-event batch with `name` as given, as one record batch. */
function withNameData(name: Data<Utf8>): Uint8Array {
  const f64 = (values: number[]) => makeData({ type: new Float64(), length: 4, nullCount: 0, data: new Float64Array(values) });
  const fields = ['level', 'ts_ms', 'latency_ms', 'compute_ms', 'queue_ms'].map((n) => new Field(n, new Float64(), false));
  const schema = new Schema([...fields, new Field('status', new Int32(), false), new Field('name', new Utf8(), false)]);
  const children = [f64([1, 1, 1, 1]), f64([T0, T0, T0, T0]), f64([1, 2, 3, 4]), f64([0, 0, 0, 0]), f64([0, 0, 0, 0]), makeData({ type: new Int32(), length: 4, nullCount: 0, data: new Int32Array([200, 200, 200, 200]) }), name];
  const struct = makeData({ type: new Struct(schema.fields), length: 4, nullCount: 0, children: children as Data[] });
  return RecordBatchStreamWriter.writeAll([new RecordBatch(schema, struct)]).toUint8Array(true);
}

function findInt32Run(bytes: Uint8Array, run: number[]): number {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + run.length * 4 <= bytes.length; at += 4) if (run.every((v, i) => dv.getInt32(at + 4 * i, true) === v)) return at;
  throw new Error('run not found');
}
