import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocateColumns } from '@kneeboard/event-wire';
import { listSpool, RunSpool } from '../src/spool.ts';
import { batchBody, jsonBody } from '../src/wire-body.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'kb-spool-unit-'));

describe('the spool directory', () => {
  it('lists entries in sequence order, whatever order they were written in', async () => {
    const dir = fresh();
    const spool = await RunSpool.open(dir, 'run-a');
    const arrow = batchBody('arrow', 'b-1', 'agent a&b', allocateColumns(3));
    await Promise.all([spool.write(3, 'finish', jsonBody({})), spool.write(1, 'steps', jsonBody({})), spool.write(2, 'events', arrow)]);
    const [run] = await listSpool(dir);
    expect(run!.entries.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'steps'],
      [2, 'events'],
      [3, 'finish'],
    ]);
    // An Arrow body comes back byte for byte, with its query string (batch_id, agent_id).
    const back = await spool.read(run!.entries[1]!.file);
    expect(back.contentType).toBe(arrow.contentType);
    expect(new URLSearchParams(back.query).get('agent_id')).toBe('agent a&b');
    expect(Buffer.from(back.bytes).equals(Buffer.from(arrow.bytes))).toBe(true);
    expect(Buffer.from((await spool.read(run!.entries[0]!.file)).bytes).toString()).toBe('{}');
    // Our own directory is not "owned by another live process".
    expect(run!.liveOwner).toBeNull();
  });

  it('leaves a live owner alone, and cleans a dead owner’s half-written files', async () => {
    const dir = fresh();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    try {
      for (const [runId, pid] of [
        ['live', child.pid!],
        ['dead', 2 ** 22 + 12345], // above Linux's pid_max: no such process
      ] as const) {
        const d = join(dir, runId);
        await RunSpool.open(dir, runId);
        writeFileSync(join(d, 'owner.json'), JSON.stringify({ pid, host: hostname() }));
        writeFileSync(join(d, '000000000001.events.json.99.tmp'), '{"half');
      }
      const runs = await listSpool(dir);
      expect(runs.find((r) => r.runId === 'live')!.liveOwner?.pid).toBe(child.pid);
      expect(runs.find((r) => r.runId === 'dead')!.liveOwner).toBeNull();
      expect(readdirSync(join(dir, 'live')).some((f) => f.endsWith('.tmp'))).toBe(true);
      expect(readdirSync(join(dir, 'dead')).some((f) => f.endsWith('.tmp'))).toBe(false);
    } finally {
      child.kill();
    }
  });

  it('removes the run directory on close once it is empty, and keeps it while files remain', async () => {
    const dir = fresh();
    const a = await RunSpool.open(dir, 'a');
    await a.close();
    expect(existsSync(join(dir, 'a'))).toBe(false);
    const b = await RunSpool.open(dir, 'b');
    await b.write(1, 'events', jsonBody({}));
    await b.close();
    expect(readdirSync(join(dir, 'b'))).toEqual(['000000000001.events.json']);
  });

  it('is empty when the directory does not exist yet', async () => {
    expect(await listSpool(join(fresh(), 'nope'))).toEqual([]);
  });
});
