/**
 * Renders the single-server migrations for a cluster, from the same .sql files: every table
 * becomes a shard-local `<name>_local` (Replicated* where the cluster has Keeper) plus a
 * `Distributed` table under the original name, so queries never know which shape they run on.
 * Pure string work on the small, regular DDL the migrations use; golden tests pin the output.
 */
import { splitStatements } from '../statements.ts';

export interface ClusterShape {
  /** The cluster's name in remote_servers (CLICKHOUSE_CLUSTER). */
  cluster: string;
  /** Keeper present: DDL once with ON CLUSTER, Replicated*MergeTree engines. Otherwise node by node. */
  replicated: boolean;
}

/** One statement and where it runs: every node (DDL), or one replica of each shard (data). */
export interface RenderedStatement {
  sql: string;
  on: 'every-node' | 'each-shard';
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TABLE = /\bkb_[a-z0-9_]+_v1\b/g;

/**
 * How each Distributed table spreads rows. Versions of one row (ReplacingMergeTree + FINAL) must
 * meet on one shard, so those hash their key. The API writes request rows straight into the shard
 * chosen by the batch (see insert-events.ts); this key is for anyone inserting through the table.
 */
export const SHARDING_KEYS: Record<string, string> = {
  kb_runs_v1: 'cityHash64(id)',
  kb_steps_v1: 'cityHash64(run_id)',
  kb_requests_v1: 'cityHash64(run_id, agent_id, ts_ms)',
  kb_request_events_v1: 'cityHash64(run_id, agent_id, ts_us)',
  kb_batches_v1: 'cityHash64(run_id)',
  kb_links_v1: 'cityHash64(code)',
  kb_request_seconds_v1: 'cityHash64(run_id, level, second)',
  kb_request_name_seconds_v1: 'cityHash64(run_id, level, name, second)',
  kb_tokens_v1: 'cityHash64(id)',
  kb_fleet_agents_v1: 'cityHash64(run_id)',
  kb_fleet_steps_v1: 'cityHash64(run_id)',
  kb_fleet_log_v1: 'cityHash64(run_id)',
  kb_fleet_seen_v1: 'cityHash64(run_id)',
  kb_deleted_runs_v1: 'cityHash64(run_id)',
  kb_webhooks_v1: 'cityHash64(id)',
  kb_webhook_deliveries_v1: 'cityHash64(webhook_id)',
  kb_server_metrics_v1: 'cityHash64(run_id)',
  kb_server_metric_steps_v1: 'cityHash64(run_id)',
};

export const localName = (table: string) => `${table}_local`;
const toLocal = (sql: string) => sql.replace(TABLE, (t) => localName(t));

function replicatedEngine(engine: string, args: string, table: string): string {
  const path = `'/clickhouse/tables/{shard}/{database}/${localName(table)}'`;
  return `Replicated${engine}(${[path, "'{replica}'", ...(args.trim() ? [args.trim()] : [])].join(', ')})`;
}

function renderCreateTable(sql: string, shape: ClusterShape, onCluster: string): RenderedStatement[] {
  const m = /^(?<head>[\s\S]*?CREATE TABLE IF NOT EXISTS )(?<table>kb_[a-z0-9_]+_v1)(?<body>[\s\S]*?)ENGINE = (?<engine>\w*MergeTree)(?:\((?<args>[^)]*)\))?(?<rest>[\s\S]*)$/.exec(sql);
  if (!m?.groups) throw new Error(`cannot render for a cluster: ${sql.slice(0, 80)}`);
  const { head, table, body, engine, args, rest } = m.groups as Record<string, string>;
  const key = SHARDING_KEYS[table as string];
  if (!key) throw new Error(`no sharding key for ${table}: add it to SHARDING_KEYS`);
  const localEngine = shape.replicated ? replicatedEngine(engine as string, args ?? '', table as string) : `${engine}${args !== undefined ? `(${args})` : ''}`;
  const local = `${head}${localName(table as string)}${onCluster}${body}ENGINE = ${localEngine}${rest}`;
  const distributed = `CREATE TABLE IF NOT EXISTS ${table}${onCluster} AS ${localName(table as string)}\nENGINE = Distributed(${shape.cluster}, currentDatabase(), ${localName(table as string)}, ${key})`;
  return [
    { sql: local, on: 'every-node' },
    { sql: distributed, on: 'every-node' },
  ];
}

/** The statements one migration file becomes on a cluster, in order. */
export function renderForCluster(sql: string, shape: ClusterShape): RenderedStatement[] {
  if (!NAME.test(shape.cluster)) throw new Error(`cluster name ${JSON.stringify(shape.cluster)} must match ${NAME}`);
  const statements = splitStatements(sql);
  if (statements.length > 1) return statements.flatMap((s) => renderForCluster(s, shape));
  const onCluster = shape.replicated ? ` ON CLUSTER ${shape.cluster}` : '';
  const code = sql.replace(/^--.*$/gm, '').trim();
  if (/^CREATE TABLE /.test(code)) return renderCreateTable(sql, shape, onCluster);
  if (/^ALTER TABLE /.test(code)) {
    // Both tables: the local one holds the data, the Distributed one must show the same columns.
    const table = /^ALTER TABLE (kb_[a-z0-9_]+_v1)/.exec(code)?.[1] as string;
    return [
      { sql: code.replace(`ALTER TABLE ${table}`, `ALTER TABLE ${localName(table)}${onCluster}`), on: 'every-node' },
      { sql: code.replace(`ALTER TABLE ${table}`, `ALTER TABLE ${table}${onCluster}`), on: 'every-node' },
    ];
  }
  if (/^CREATE MATERIALIZED VIEW /.test(code)) {
    // A view reads the shard's own inserts and writes the shard's own rollup.
    const rendered = toLocal(code).replace(/^(CREATE MATERIALIZED VIEW IF NOT EXISTS \w+)/, `$1${onCluster}`);
    return [{ sql: rendered, on: 'every-node' }];
  }
  if (/^DROP VIEW IF EXISTS /.test(code)) {
    // Views are shard-local (above).
    return [{ sql: toLocal(code).replace(/^(DROP VIEW IF EXISTS \w+)/, `$1${onCluster}`), on: 'every-node' }];
  }
  // Data statements run on one replica of each shard, on its local table (a replicated table passes them on).
  // (A lightweight DELETE included: a Distributed table takes none, and each shard's rows are its own.)
  if (/^INSERT INTO /.test(code) || /^TRUNCATE TABLE /.test(code) || /^DELETE FROM /.test(code)) return [{ sql: toLocal(code), on: 'each-shard' }];
  throw new Error(`cannot render for a cluster: ${code.slice(0, 80)}`);
}
