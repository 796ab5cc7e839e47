import { describe, expect, it } from 'vitest';
import { renderForCluster } from '../src/cluster/render.ts';
import { splitStatements } from '../src/statements.ts';

describe('a migration file of several statements', () => {
  it('splits at a `;` ending a code line, never inside a comment, and keeps a one-statement file whole', () => {
    expect(splitStatements('-- why;\nTRUNCATE TABLE IF EXISTS kb_a_v1;\nINSERT INTO kb_a_v1\nSELECT 1;\n')).toEqual([
      '-- why;\nTRUNCATE TABLE IF EXISTS kb_a_v1',
      'INSERT INTO kb_a_v1\nSELECT 1',
    ]);
    const one = '-- a comment\nCREATE TABLE IF NOT EXISTS kb_a_v1 (x UInt8)\nENGINE = MergeTree\nORDER BY x\n';
    expect(splitStatements(one)).toEqual([one]);
  });

  it('renders each statement for a cluster: data statements on each shard, views dropped on every node', () => {
    const sql = 'TRUNCATE TABLE IF EXISTS kb_a_v1;\nINSERT INTO kb_a_v1 SELECT * FROM kb_b_v1;\nDROP VIEW IF EXISTS kb_a_mv_v1';
    expect(renderForCluster(sql, { cluster: 'c1', replicated: true })).toEqual([
      { sql: 'TRUNCATE TABLE IF EXISTS kb_a_v1_local', on: 'each-shard' },
      { sql: 'INSERT INTO kb_a_v1_local SELECT * FROM kb_b_v1_local', on: 'each-shard' },
      { sql: 'DROP VIEW IF EXISTS kb_a_mv_v1_local ON CLUSTER c1', on: 'every-node' },
    ]);
  });
});
