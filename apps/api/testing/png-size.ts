/** A PNG's width and height from its IHDR chunk, after checking the 8-byte signature. */
export function pngSize(png: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!png.subarray(0, 8).equals(signature)) throw new Error('not a PNG');
  if (png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('no IHDR chunk first');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
