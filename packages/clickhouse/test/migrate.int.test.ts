import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openDb } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-migrate-'));
const db = openDb({ mode: 'embedded', path: dir });
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('are numbered .sql files applied in order, once, and recorded', async () => {
    const all = loadMigrations();
    // Numbered in blocks per area of work (001–009, 010–019…): increasing, not necessarily consecutive.
    expect(all.map((m) => m.version)).toEqual([...new Set(all.map((m) => m.version))].sort((a, b) => a - b));
    expect((await migrate(db)).map((m) => m.version)).toEqual(all.map((m) => m.version));
    expect(await migrate(db)).toEqual([]);
    const tables = await db.client.query({ query: "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'kb_%' ORDER BY name", format: 'JSONEachRow' });
    expect(((await tables.json()) as Array<{ name: string }>).map((t) => t.name)).toEqual([
      'kb_batches_v1',
      'kb_deleted_runs_v1',
      'kb_fleet_agents_v1',
      'kb_fleet_log_v1',
      'kb_fleet_seen_v1',
      'kb_fleet_steps_v1',
      'kb_links_v1',
      'kb_request_events_v1',
      'kb_request_name_seconds_from_events_mv_v1',
      'kb_request_name_seconds_v1',
      'kb_request_seconds_unnamed_mv_v1',
      'kb_request_seconds_v1',
      'kb_requests_v1',
      'kb_runs_v1',
      'kb_schema_migrations',
      'kb_server_metric_steps_v1',
      'kb_server_metrics_v1',
      'kb_steps_v1',
      'kb_tokens_v1',
      'kb_webhook_deliveries_v1',
      'kb_webhooks_v1',
    ]);
  });

  it('refuse to run when an applied migration was edited', async () => {
    const edited = loadMigrations().map((m) => (m.version === 1 ? { ...m, checksum: 'edited' } : m));
    await expect(migrate(db, edited)).rejects.toThrow(/001_create_runs_v1.sql was changed/);
  });
});
