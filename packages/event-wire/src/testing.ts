/**
 * Test support, for this package's tests and the API's adversarial suite: Arrow streams broken the
 * way a hostile or buggy sender breaks them. Not part of the wire format.
 */
import { Field, makeData, MessageReader, RecordBatch, RecordBatchReader, RecordBatchStreamWriter, Schema, Struct, Utf8, type Data } from 'apache-arrow';
import { EVENT_NAME_COLUMN } from '@kneeboard/contracts';
import { encodeArrowColumns } from './arrow-batch.ts';
import type { EventColumns } from './columns.ts';

/** Where each buffer region of the record batch lies in the stream's bytes (its two int64s), found by their values. */
function bufferRegionsAt(bytes: Uint8Array): number[] {
  const reader = new MessageReader(bytes);
  let regions: Array<{ offset: number; length: number }> = [];
  for (const m of reader) {
    if (m.isRecordBatch()) regions = (m.header() as unknown as { buffers: typeof regions }).buffers;
    reader.readMessageBody(m.bodyLength);
  }
  // The regions are one flatbuffer vector of (offset, length) int64 pairs: find the whole run of them.
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + regions.length * 16 <= bytes.length; at += 8) {
    if (regions.every((r, i) => dv.getBigInt64(at + 16 * i, true) === BigInt(r.offset) && dv.getBigInt64(at + 16 * i + 8, true) === BigInt(r.length))) {
      return regions.map((_, i) => at + 16 * i);
    }
  }
  throw new Error('buffer regions not found');
}

/** The stream with buffer `which`'s length field set to `length`, the probe's patch. */
export function patchBufferLength(bytes: Uint8Array, which: number, length: bigint): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setBigInt64(bufferRegionsAt(bytes)[which]! + 8, length, true);
  return out;
}


/**
 * The canonical stream with its names as a plain utf8 column, what pyarrow writes for a string
 * column and the SDK sent before names went dictionary-coded: to test and measure the API on both.
 */
export function encodeArrowColumnsUtf8Names(c: EventColumns): Uint8Array {
  const bytes = encodeArrowColumns(c);
  if (!c.name) return bytes;
  const batch = RecordBatchReader.from(bytes).readAll()[0]!;
  const encoded = c.name.values.map((v) => new TextEncoder().encode(v));
  const offsets = new Int32Array(c.length + 1);
  for (let i = 0; i < c.length; i++) offsets[i + 1] = offsets[i]! + encoded[c.name.index[i]!]!.length;
  const data = new Uint8Array(offsets[c.length]!);
  for (let i = 0; i < c.length; i++) data.set(encoded[c.name.index[i]!]!, offsets[i]!);
  const names = makeData({ type: new Utf8(), length: c.length, nullCount: 0, valueOffsets: offsets, data });
  const fields = batch.schema.fields.map((f) => (f.name === EVENT_NAME_COLUMN ? new Field(f.name, new Utf8(), false) : f));
  const children: Data[] = batch.schema.fields.map((f) => (f.name === EVENT_NAME_COLUMN ? names : batch.getChild(f.name)!.data[0]!));
  const schema = new Schema(fields);
  return RecordBatchStreamWriter.writeAll([new RecordBatch(schema, makeData({ type: new Struct(fields), length: c.length, nullCount: 0, children }))]).toUint8Array(true);
}
