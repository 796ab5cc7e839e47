/**
 * Test support, for this package's tests and the API's adversarial suite: Arrow streams broken the
 * way a hostile or buggy sender breaks them. Not part of the wire format.
 */
import { MessageReader } from 'apache-arrow';

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

