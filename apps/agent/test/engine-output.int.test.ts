import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openEngineOutput } from '../src/native/engine-output.ts';

/**
 * The native engine's output channel (src/native/engine-output.ts): a child writes a known stream
 * to its stdout in writes of every size; the reader sees every byte once, in order, every read in
 * the same reused buffer, and settles only after the last byte.
 */
describe('openEngineOutput', () => {
  it('hands over every byte the child wrote, in order, through one reused buffer, then settles', async () => {
    const total = 3 * 1024 * 1024 + 17;
    const got = Buffer.alloc(total + 1024);
    let at = 0;
    const buffers = new Set<ArrayBufferLike>();
    const output = await openEngineOutput((bytes) => {
      buffers.add(bytes.buffer);
      got.set(bytes, at);
      at += bytes.length;
    });
    expect(output).toBeDefined();
    // Byte i is (i * 31 + 7) mod 251: a shifted or repeated read cannot match it by chance.
    const writer = `
      const fs = require('node:fs');
      const total = ${total};
      const all = Buffer.alloc(total);
      for (let i = 0; i < total; i++) all[i] = (i * 31 + 7) % 251;
      let at = 0, size = 1;
      while (at < total) {
        const n = Math.min(size, total - at);
        at += fs.writeSync(1, all, at, n);
        size = size >= 300000 ? 1 : size * 3 + 1;
      }`;
    const child = spawn(process.execPath, ['-e', writer], { stdio: ['ignore', output!.engineEnd, 'inherit'] });
    output!.engineEnd.destroy();
    const [code, readError] = await Promise.all([new Promise((resolve) => child.on('close', resolve)), output!.closed]);
    expect(code).toBe(0);
    expect(readError).toBeUndefined();
    expect(at).toBe(total);
    for (let i = 0; i < total; i++) {
      if (got[i] !== (i * 31 + 7) % 251) expect.fail(`byte ${i} is ${got[i]}, not ${(i * 31 + 7) % 251}`);
    }
    // Every read landed in the one buffer made for the step: no allocation per read.
    expect(buffers.size).toBe(1);
  });
});
