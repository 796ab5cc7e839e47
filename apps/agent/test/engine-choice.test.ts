import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveEngine } from '../src/native/engine-binary.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-engine-choice-'));
const built = join(dir, 'kneeboard-engine');
writeFileSync(built, '#!/bin/sh\n');
chmodSync(built, 0o755);
const missing = join(dir, 'not-built');
const http = new URL('http://127.0.0.1:8080/');
const https = new URL('https://127.0.0.1:8443/');

describe('resolveEngine (--engine auto|node|native)', () => {
  it('auto: native when built, for http and https alike; else node, with a note for https', () => {
    expect(resolveEngine('auto', http, built)).toEqual({ engine: 'native' });
    expect(resolveEngine('auto', https, built)).toEqual({ engine: 'native' });
    expect(resolveEngine('auto', http, missing)).toEqual({ engine: 'node', note: undefined });
    expect(resolveEngine('auto', https, missing)).toMatchObject({ engine: 'node', note: expect.stringContaining('https') });
  });

  it('node is always node; native where it cannot run is an error saying what to do', () => {
    expect(resolveEngine('node', http, built)).toEqual({ engine: 'node' });
    expect(resolveEngine('native', http, built)).toEqual({ engine: 'native' });
    expect(resolveEngine('native', http, missing)).toEqual({ error: expect.stringContaining('cargo build --release') });
    expect(resolveEngine('native', https, built)).toEqual({ engine: 'native' });
  });

  it('HTTP/2 (--http2, --http auto) is the native engine’s only: never a silent fallback to node', () => {
    expect(resolveEngine('auto', https, built, '2')).toEqual({ engine: 'native' });
    expect(resolveEngine('auto', http, built, 'auto')).toEqual({ engine: 'native' });
    expect(resolveEngine('node', http, built, '2')).toEqual({ error: expect.stringMatching(/^--http2: needs the native engine/) });
    expect(resolveEngine('node', https, built, 'auto')).toEqual({ error: expect.stringMatching(/^--http auto: needs the native engine/) });
    expect(resolveEngine('auto', http, missing, '2')).toEqual({ error: expect.stringContaining('cargo build --release') });
  });
});
