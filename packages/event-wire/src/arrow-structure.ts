import { DataType, MessageHeader, MessageReader, Precision, type Dictionary, type Field, type Float, type Int, type Schema } from 'apache-arrow';
import { EVENT_NAME_COLUMN, MAX_BATCH_EVENTS } from '@kneeboard/contracts';

/**
 * Bytes per value of the numeric types a batch may use, 'utf8' for the name column's strings
 * (validity, int32 offsets, bytes: three buffers); null for any other type (refused later, naming
 * the column). A dictionary-coded name column carries only its indices in a record batch (validity,
 * values: two buffers, like a number); its strings come once, in the dictionary batch.
 */
function bytesPerValue(field: Field): number | 'utf8' | null {
  if (DataType.isInt(field.type)) return (field.type as Int).bitWidth / 8;
  const dictionary = nameDictionary(field);
  if (dictionary) return dictionary.indices.bitWidth / 8;
  if (DataType.isFloat(field.type)) {
    const p = (field.type as Float).precision;
    return p === Precision.HALF ? 2 : p === Precision.SINGLE ? 4 : 8;
  }
  if (DataType.isUtf8(field.type)) return 'utf8';
  return null;
}

const plausible = (n: number) => Number.isSafeInteger(n) && n >= 0;

/**
 * The one dictionary type a batch may use: utf8 strings indexed by signed integers of up to 32
 * bits (what pyarrow, arrow-js and arrow-rs write for a dictionary-encoded string column). Null
 * for any other type, dictionary or not.
 */
export function nameDictionary(field: Field): Dictionary | null {
  if (!DataType.isDictionary(field.type)) return null;
  const type = field.type as Dictionary;
  return DataType.isUtf8(type.dictionary) && type.indices.isSigned && type.indices.bitWidth <= 32 ? type : null;
}

/** What a dictionary batch message's header says (apache-arrow's metadata class, not exported either). */
interface DictionaryHeader {
  id: number;
  isDelta: boolean;
  data: BatchHeader;
}

/**
 * Checks the IPC stream's own bookkeeping before any of it is read: every record batch's row
 * count, field nodes and buffer regions must agree with each other and fit inside the message
 * body that carries them, as a reader must check. apache-arrow (JS) does not: a buffer length
 * patched to 2^40 or to 8 is silently clipped to what is there, the columns look fine, and the
 * very same bytes, handed on to ClickHouse as they came, are refused there — by then as a storage
 * failure, which an agent retries for ever. Here it is a 400 naming the column. Returns the
 * problem, or null when the stream's structure is sound; throws nothing.
 */
export function arrowStructureProblem(bytes: Uint8Array): { field: string; message: string } | null {
  let schema: Schema | undefined;
  let rows = 0;
  let dictionaries = 0;
  try {
    const reader = new MessageReader(bytes);
    for (const message of reader) {
      const bodyLength = message.bodyLength;
      if (!plausible(bodyLength)) return { field: 'body', message: `a message declares a body of ${bodyLength} bytes` };
      if (message.isSchema()) {
        schema = message.header() as Schema;
      } else if (message.isRecordBatch()) {
        if (!schema) return { field: 'body', message: 'a record batch comes before the schema' };
        if (dictionaries === 0 && schema.fields.some((f) => nameDictionary(f) !== null)) return { field: 'name', message: 'a record batch comes before the dictionary batch its name column refers to' };
        const header = message.header() as BatchHeader;
        const problem = recordBatchProblem(header, bodyLength, schema);
        if (problem) return problem;
        rows += header.length;
        if (rows > MAX_BATCH_EVENTS) return { field: 'level', message: `at most ${MAX_BATCH_EVENTS} events per batch` };
        const offsets = stringOffsetsProblem(header, reader.readMessageBody(bodyLength), schema);
        if (offsets) return offsets;
        continue;
      } else if (message.headerType === MessageHeader.DictionaryBatch) {
        if (!schema) return { field: 'body', message: 'a dictionary batch comes before the schema' };
        const problem = dictionaryBatchProblem(message.header() as DictionaryHeader, bodyLength, schema, dictionaries);
        if (problem) return problem;
        dictionaries++;
        const offsets = dictionaryOffsetsProblem((message.header() as DictionaryHeader).data, reader.readMessageBody(bodyLength));
        if (offsets) return offsets;
        continue;
      } else {
        return { field: 'body', message: `unexpected IPC message type ${message.headerType}` };
      }
      // Throws when the stream holds fewer bytes than the message declares.
      reader.readMessageBody(bodyLength);
    }
  } catch (err) {
    return { field: 'body', message: `not a readable Arrow IPC stream: ${(err as Error).message}` };
  }
  return schema ? null : { field: 'body', message: 'not a readable Arrow IPC stream: no schema message' };
}

/** What a record batch message's header says (apache-arrow's metadata class, which it does not export). */
interface BatchHeader {
  length: number;
  nodes: ReadonlyArray<{ length: number; nullCount: number }>;
  buffers: ReadonlyArray<{ offset: number; length: number }>;
  compression: unknown;
}

function recordBatchProblem(h: BatchHeader, bodyLength: number, schema: Schema): { field: string; message: string } | null {
  if (h.compression) return { field: 'body', message: 'compressed record batches are not supported: send the stream uncompressed' };
  const n = h.length;
  if (!plausible(n)) return { field: 'body', message: `a record batch declares ${n} rows` };
  for (const b of h.buffers) {
    if (!plausible(b.offset) || !plausible(b.length) || b.offset + b.length > bodyLength) {
      return { field: 'body', message: `a buffer region (offset ${b.offset}, length ${b.length}) lies outside its record batch's body of ${bodyLength} bytes` };
    }
  }
  const widths = schema.fields.map(bytesPerValue);
  // Only flat numeric columns and utf8 names are accepted; with any other type the column check names it.
  if (widths.some((w) => w === null)) return null;
  const buffers = widths.reduce<number>((s, w) => s + (w === 'utf8' ? 3 : 2), 0);
  if (h.nodes.length !== schema.fields.length || h.buffers.length !== buffers) {
    return { field: 'body', message: `a record batch has ${h.nodes.length} field nodes and ${h.buffers.length} buffers for ${schema.fields.length} columns` };
  }
  for (let i = 0, b = 0; i < schema.fields.length; i++) {
    const name = schema.fields[i]!.name;
    const node = h.nodes[i]!;
    const width = widths[i]!;
    const validity = h.buffers[b]!;
    const values = h.buffers[b + 1]!;
    b += width === 'utf8' ? 3 : 2;
    if (node.length !== n) return { field: name, message: `has ${node.length} entries in a record batch of ${n} rows` };
    if (!plausible(node.nullCount) || node.nullCount > n) return { field: name, message: `declares ${node.nullCount} nulls in ${n} entries` };
    if (node.nullCount > 0 && validity.length < Math.ceil(n / 8)) {
      return { field: name, message: `its validity bitmap has ${validity.length} bytes; ${n} entries need ${Math.ceil(n / 8)}` };
    }
    const need = width === 'utf8' ? (n === 0 ? 0 : (n + 1) * 4) : n * width;
    if (values.length < need) return { field: name, message: `its ${width === 'utf8' ? 'offsets' : 'values'} buffer has ${values.length} bytes; ${n} entries need ${need}` };
  }
  return null;
}

/**
 * The name column's dictionary: only for a dictionary-coded `name` field of the schema, sent once
 * and before the first record batch (no delta, no replacement: one batch, one set of names), its
 * single utf8 column's buffers inside the message body. More entries than a batch has events
 * would only be a way to send bytes nobody reads.
 */
function dictionaryBatchProblem(h: DictionaryHeader, bodyLength: number, schema: Schema, seenBefore: number): { field: string; message: string } | null {
  const field = schema.fields.find((f) => DataType.isDictionary(f.type) && (f.type as Dictionary).id === h.id);
  if (!field) return { field: 'body', message: `a dictionary batch for dictionary id ${h.id}, which no column of the schema uses` };
  const name = field.name;
  if (name !== EVENT_NAME_COLUMN || !nameDictionary(field)) {
    const want = name === EVENT_NAME_COLUMN ? 'a utf8 (string) column or a dictionary of utf8 with signed integer indices' : 'a numeric column';
    return { field: name, message: `expected ${want}, got ${String(field.type)}` };
  }
  if (h.isDelta) return { field: name, message: 'delta dictionary batches are not supported: send the whole dictionary once' };
  // A record batch cannot come before it (arrowStructureProblem), so a second one would replace it mid-stream.
  if (seenBefore > 0) return { field: name, message: 'a second dictionary batch: send the dictionary once, before the record batch' };
  const d = h.data;
  if (d.compression) return { field: 'body', message: 'compressed dictionary batches are not supported: send the stream uncompressed' };
  const n = d.length;
  if (!plausible(n)) return { field: name, message: `its dictionary declares ${n} entries` };
  if (n > MAX_BATCH_EVENTS) return { field: name, message: `its dictionary has ${n} entries; at most ${MAX_BATCH_EVENTS}` };
  if (d.nodes.length !== 1 || d.buffers.length !== 3) return { field: name, message: `its dictionary batch has ${d.nodes.length} field nodes and ${d.buffers.length} buffers for one utf8 column` };
  for (const b of d.buffers) {
    if (!plausible(b.offset) || !plausible(b.length) || b.offset + b.length > bodyLength) {
      return { field: name, message: `a dictionary buffer region (offset ${b.offset}, length ${b.length}) lies outside its body of ${bodyLength} bytes` };
    }
  }
  const node = d.nodes[0]!;
  if (node.length !== n) return { field: name, message: `its dictionary has ${node.length} entries in a batch of ${n}` };
  if (!plausible(node.nullCount) || node.nullCount > n) return { field: name, message: `its dictionary declares ${node.nullCount} nulls in ${n} entries` };
  if (node.nullCount > 0 && d.buffers[0]!.length < Math.ceil(n / 8)) return { field: name, message: `its dictionary's validity bitmap has ${d.buffers[0]!.length} bytes; ${n} entries need ${Math.ceil(n / 8)}` };
  const need = n === 0 ? 0 : (n + 1) * 4;
  if (d.buffers[1]!.length < need) return { field: name, message: `its dictionary's offsets buffer has ${d.buffers[1]!.length} bytes; ${n} entries need ${need}` };
  return null;
}

/** The dictionary's string offsets, as stringOffsetsProblem checks a utf8 column's. */
function dictionaryOffsetsProblem(d: BatchHeader, body: Uint8Array): { field: string; message: string } | null {
  const broken = offsetsProblem(d.length, d.buffers[1]!, d.buffers[2]!, new DataView(body.buffer, body.byteOffset, body.byteLength));
  return broken === null ? null : { field: 'name', message: `its dictionary's ${broken}` };
}

/** Offsets that start at or after 0, never decrease and end inside the bytes buffer; else what is wrong. */
function offsetsProblem(n: number, offsets: { offset: number }, bytes: { length: number }, view: DataView): string | null {
  if (n === 0) return null;
  let last = 0;
  for (let k = 0; k <= n; k++) {
    const v = view.getInt32(offsets.offset + 4 * k, true);
    if (v < last || v > bytes.length) return `string offsets are broken at entry ${k} (${v}; bytes buffer of ${bytes.length})`;
    last = v;
  }
  return null;
}

/**
 * A utf8 column's offsets, read from the body: starting at or after 0, never decreasing, and
 * ending inside its bytes buffer. apache-arrow reads whatever they say; a string cannot lie
 * outside the bytes it is cut from.
 */
function stringOffsetsProblem(h: BatchHeader, body: Uint8Array, schema: Schema): { field: string; message: string } | null {
  const n = h.length;
  if (n === 0) return null;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let i = 0, b = 0; i < schema.fields.length; i++) {
    const width = bytesPerValue(schema.fields[i]!);
    if (width === null) return null;
    if (width !== 'utf8') {
      b += 2;
      continue;
    }
    const broken = offsetsProblem(n, h.buffers[b + 1]!, h.buffers[b + 2]!, view);
    b += 3;
    if (broken !== null) return { field: schema.fields[i]!.name, message: `its ${broken}` };
  }
  return null;
}
