-- 001_create_runs_v1.sql
-- runs on: every-node
-- One row per run version: status changes insert a newer version, reads use FINAL.
CREATE TABLE IF NOT EXISTS kb_runs_v1_local
(
    id          UUID,
    service     LowCardinality(String),
    name        String,
    release     LowCardinality(String),
    git_sha     Nullable(String),
    load_model  LowCardinality(String),
    parameter   LowCardinality(String),
    tags        Map(String, String),
    agent_host  Nullable(String),
    agent_cores Nullable(UInt32),
    status      LowCardinality(String),
    created_at  DateTime64(3, 'UTC'),
    finished_at Nullable(DateTime64(3, 'UTC')),
    version     UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY id;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_runs_v1 AS kb_runs_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_runs_v1_local, cityHash64(id));

-- 002_create_steps_v1.sql
-- runs on: every-node
-- A load level's time window, in epoch milliseconds like the request rows it selects.
-- The agent posts a step when it starts (ended_at_ms NULL) and again when it ends; the newest wins.
CREATE TABLE IF NOT EXISTS kb_steps_v1_local
(
    run_id          UUID,
    level           Float64,
    started_at_ms   Float64,
    measure_from_ms Float64,
    ended_at_ms     Nullable(Float64),
    version         UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, level);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_steps_v1 AS kb_steps_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_steps_v1_local, cityHash64(run_id));

-- 003_create_requests_v1.sql
-- runs on: every-node
-- One row per request. Percentiles are computed from these raw rows, never from pre-averaged data.
-- The deduplication window makes a retried insert with the same insert_deduplication_token
-- (the batch id) a no-op; kb_batches_v1 is the durable record beyond the window.
CREATE TABLE IF NOT EXISTS kb_requests_v1_local
(
    run_id     UUID,
    level      Float64,
    agent_id   LowCardinality(String),
    ts_ms      Float64,
    latency_ms Float64,
    compute_ms Nullable(Float64),
    queue_ms   Nullable(Float64),
    status     UInt16
)
ENGINE = MergeTree
ORDER BY (run_id, level, ts_ms)
SETTINGS non_replicated_deduplication_window = 10000;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_requests_v1 AS kb_requests_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_requests_v1_local, cityHash64(run_id, agent_id, ts_ms));

-- 004_create_batches_v1.sql
-- runs on: every-node
-- Every accepted event batch, so a batch re-sent long after its insert is still recognised.
CREATE TABLE IF NOT EXISTS kb_batches_v1_local
(
    run_id      UUID,
    batch_id    String,
    agent_id    LowCardinality(String),
    events      UInt32,
    received_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (run_id, batch_id);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_batches_v1 AS kb_batches_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_batches_v1_local, cityHash64(run_id));

-- 005_add_run_labels_and_note.sql
-- runs on: every-node
ALTER TABLE kb_runs_v1_local
    ADD COLUMN IF NOT EXISTS labels Array(String) AFTER tags,
    ADD COLUMN IF NOT EXISTS note String DEFAULT '' AFTER labels;
-- runs on: every-node
ALTER TABLE kb_runs_v1
    ADD COLUMN IF NOT EXISTS labels Array(String) AFTER tags,
    ADD COLUMN IF NOT EXISTS note String DEFAULT '' AFTER labels;

-- 006_create_links_v1.sql
-- runs on: every-node
-- Short links: a code that resolves to a view's full URL path (its state lives in the query string).
CREATE TABLE IF NOT EXISTS kb_links_v1_local
(
    code       String,
    path       String,
    created_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY code;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_links_v1 AS kb_links_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_links_v1_local, cityHash64(code));

-- 007_add_step_health.sql
-- runs on: every-node
ALTER TABLE kb_steps_v1_local
    ADD COLUMN IF NOT EXISTS target                  Nullable(Float64),
    ADD COLUMN IF NOT EXISTS in_flight_mean          Nullable(Float64),
    ADD COLUMN IF NOT EXISTS late_sends              Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS missed_sends            Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS agent_cpu_cores         Nullable(Float64),
    ADD COLUMN IF NOT EXISTS event_loop_delay_p99_ms Nullable(Float64),
    ADD COLUMN IF NOT EXISTS generator_limited       Nullable(UInt8),
    ADD COLUMN IF NOT EXISTS health_reason           Nullable(String);
-- runs on: every-node
ALTER TABLE kb_steps_v1
    ADD COLUMN IF NOT EXISTS target                  Nullable(Float64),
    ADD COLUMN IF NOT EXISTS in_flight_mean          Nullable(Float64),
    ADD COLUMN IF NOT EXISTS late_sends              Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS missed_sends            Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS agent_cpu_cores         Nullable(Float64),
    ADD COLUMN IF NOT EXISTS event_loop_delay_p99_ms Nullable(Float64),
    ADD COLUMN IF NOT EXISTS generator_limited       Nullable(UInt8),
    ADD COLUMN IF NOT EXISTS health_reason           Nullable(String);

-- 010_add_batch_content_hash.sql
-- runs on: every-node
ALTER TABLE kb_batches_v1_local
    ADD COLUMN IF NOT EXISTS content_hash String DEFAULT '' AFTER events;
-- runs on: every-node
ALTER TABLE kb_batches_v1
    ADD COLUMN IF NOT EXISTS content_hash String DEFAULT '' AFTER events;

-- 011_server_time_run_versions.sql
-- runs on: every-node
ALTER TABLE kb_runs_v1_local MODIFY COLUMN version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6));
-- runs on: every-node
ALTER TABLE kb_runs_v1 MODIFY COLUMN version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6));

-- 012_server_time_step_versions.sql
-- runs on: every-node
ALTER TABLE kb_steps_v1_local MODIFY COLUMN version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6));
-- runs on: every-node
ALTER TABLE kb_steps_v1 MODIFY COLUMN version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6));

-- 013_create_request_seconds_v1.sql
-- runs on: every-node
-- The rollup: one row per (run, level, second) a request completed in, kept up to date by the
-- materialized view kb_request_seconds_mv_v1 as batches arrive. Counts (per percentile series
-- too, so a query can ask a sketch for an exact rank), the newest timestamp and the latency sum
-- are exact; percentiles are DDSketch states (quantilesDD, relative accuracy 0.005: the value at
-- a rank within 0.5%), merged across seconds, levels and shards with -Merge, never averaged. The
-- quantile levels in a state's type do not matter: -Merge reads any levels from any state.
-- States hold nanoseconds (ms × 1e6): quantilesDD is 3× less accurate below 1 (measured on 26.7).
-- Raw rows in kb_requests_v1 stay for exact answers.
-- The deduplication window lets a replayed batch's rollup block be dropped like its raw block.
CREATE TABLE IF NOT EXISTS kb_request_seconds_v1_local
(
    run_id         UUID,
    level          Float64,
    second         Int64,
    requests       SimpleAggregateFunction(sum, UInt64),
    ok             SimpleAggregateFunction(sum, UInt64),
    last_ts_ms     SimpleAggregateFunction(max, Float64),
    ok_latency_sum SimpleAggregateFunction(sum, Float64),
    compute_n      SimpleAggregateFunction(sum, UInt64),
    queue_n        SimpleAggregateFunction(sum, UInt64),
    other_n        SimpleAggregateFunction(sum, UInt64),
    latency        AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    compute        AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    queue          AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    other          AggregateFunction(quantilesDD(0.005, 0.5), Float64)
)
ENGINE = AggregatingMergeTree
ORDER BY (run_id, level, second)
SETTINGS non_replicated_deduplication_window = 10000;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_request_seconds_v1 AS kb_request_seconds_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_request_seconds_v1_local, cityHash64(run_id, level, second));

-- 014_create_request_seconds_mv_v1.sql
-- runs on: every-node
CREATE MATERIALIZED VIEW IF NOT EXISTS kb_request_seconds_mv_v1_local TO kb_request_seconds_v1_local AS
SELECT
    run_id,
    level,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_requests_v1_local
GROUP BY run_id, level, second;

-- 015_backfill_request_seconds_v1.sql
-- runs on: each-shard
INSERT INTO kb_request_seconds_v1_local
SETTINGS insert_deduplicate = 0
SELECT
    run_id,
    level,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_requests_v1_local
GROUP BY run_id, level, second;

-- 020_create_tokens_v1.sql
-- runs on: every-node
-- API tokens. Only the SHA-256 of a token is stored: tokens are 256 random bits, so a fast hash
-- cannot be reversed or guessed, and it can be looked up on every request (a slow password hash
-- protects low-entropy secrets, which these are not). `id` is the token's public prefix, for
-- listing and revoking. A revocation inserts a newer version of the row.
CREATE TABLE IF NOT EXISTS kb_tokens_v1_local
(
    id           String,
    token_sha256 String,
    name         String,
    scope        LowCardinality(String),
    service      String,
    created_at   DateTime64(3, 'UTC'),
    expires_at   Nullable(DateTime64(3, 'UTC')),
    revoked_at   Nullable(DateTime64(3, 'UTC')),
    version      UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY id;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_tokens_v1 AS kb_tokens_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_tokens_v1_local, cityHash64(id));

-- 021_add_token_runs.sql
-- runs on: every-node
ALTER TABLE kb_tokens_v1_local ADD COLUMN IF NOT EXISTS runs Array(String) DEFAULT [];
-- runs on: every-node
ALTER TABLE kb_tokens_v1 ADD COLUMN IF NOT EXISTS runs Array(String) DEFAULT [];

-- 035_create_fleet_agents_v1.sql
-- runs on: every-node
-- The agents that joined a run driven by several agents (kneeboard agent --join), with the clock
-- offset each measured to the API (NTP-style, the exchange with the smallest round trip): event
-- times are shifted by it, so this is what a reader needs to judge their alignment.
-- A leave or a loss inserts a newer version of the row.
CREATE TABLE IF NOT EXISTS kb_fleet_agents_v1_local
(
    run_id          UUID,
    agent_id        String,
    host            String,
    cores           Nullable(UInt32),
    clock_offset_ms Float64,
    clock_rtt_ms    Float64,
    joined_at_ms    Float64,
    state           LowCardinality(String),
    recorded        Nullable(UInt64),
    version         UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, agent_id);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_fleet_agents_v1 AS kb_fleet_agents_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_fleet_agents_v1_local, cityHash64(run_id));

-- 036_create_fleet_steps_v1.sql
-- runs on: every-node
-- One agent's part in one step of a run driven by several agents: its share of the load, the
-- barrier it was given and when it really started (both on the API's clock), how many requests it
-- recorded, its own health, and the outcome (ok; lost: no heartbeat; behind: started too late).
-- The step's own window and combined health stay in kb_steps_v1, like any other run's.
CREATE TABLE IF NOT EXISTS kb_fleet_steps_v1_local
(
    run_id            UUID,
    step_index        UInt32,
    level             Float64,
    agent_id          String,
    load              Float64,
    barrier_at_ms     Float64,
    started_at_ms     Nullable(Float64),
    ended_at_ms       Nullable(Float64),
    events            Nullable(UInt64),
    outcome           LowCardinality(String),
    generator_limited Nullable(UInt8),
    health_reason     Nullable(String),
    version           UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, step_index, agent_id);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_fleet_steps_v1 AS kb_fleet_steps_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_fleet_steps_v1_local, cityHash64(run_id));

-- 040_add_batch_group_token.sql
-- runs on: every-node
ALTER TABLE kb_batches_v1_local
    ADD COLUMN IF NOT EXISTS group_token String DEFAULT '' AFTER content_hash;
-- runs on: every-node
ALTER TABLE kb_batches_v1
    ADD COLUMN IF NOT EXISTS group_token String DEFAULT '' AFTER content_hash;

-- 045_create_deleted_runs_v1.sql
-- runs on: every-node
-- Runs deleted (DELETE /runs/{id}, retention): one row each, kept after the run's rows are gone.
-- Written before any of the run's rows are deleted, so every API process — replicas included —
-- refuses the run's later batches, steps and fleet writes from storage, not from one process's
-- memory; and a deletion cut short (a full disk, a crash) is finished by the retention sweep.
CREATE TABLE IF NOT EXISTS kb_deleted_runs_v1_local
(
    run_id     UUID,
    deleted_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY run_id;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_deleted_runs_v1 AS kb_deleted_runs_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_deleted_runs_v1_local, cityHash64(run_id));

-- 050_create_fleet_log_v1.sql
-- runs on: every-node
-- The plan of a run driven by several agents, as the facts that made it: the plan, steps added,
-- joins, reports, leaves, losses, API restarts, effects written (kb_fleet_* rows, step windows).
-- Append-only: every API replica reads a run's facts and folds them, in (at_ms, id) order, into
-- the same state (apps/api/src/services/fleet-machine.ts), so any replica serves the coordinator
-- and the agents, and a restarted API resumes the plan. `body` is the fact as JSON.
CREATE TABLE IF NOT EXISTS kb_fleet_log_v1_local
(
    run_id UUID,
    at_ms  Float64,
    id     String,
    kind   LowCardinality(String),
    body   String
)
ENGINE = MergeTree
ORDER BY (run_id, at_ms, id);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_fleet_log_v1 AS kb_fleet_log_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_fleet_log_v1_local, cityHash64(run_id));

-- 051_create_fleet_seen_v1.sql
-- runs on: every-node
-- When each agent of a fleet plan was last heard from (a heartbeat, a poll for its next step), on
-- the API's clock: what the silence rule reads. Kept apart from kb_fleet_log_v1 so the facts a
-- replica folds stay few; the newest row of an agent is its last sign of life.
CREATE TABLE IF NOT EXISTS kb_fleet_seen_v1_local
(
    run_id     UUID,
    agent_id   String,
    seen_at_ms Float64
)
ENGINE = ReplacingMergeTree(seen_at_ms)
ORDER BY (run_id, agent_id);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_fleet_seen_v1 AS kb_fleet_seen_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_fleet_seen_v1_local, cityHash64(run_id));

-- 060_create_server_metrics_v1.sql
-- runs on: every-node
-- What the server spent during a run (issue 28): one value per metric per second of each step,
-- read by the agent from the target's /metrics, /proc or a cgroup. `fn` says how the value reads:
-- rate (a counter's increase per second over the second ending here: CPU-seconds → cores used),
-- mean or max (a gauge). One source per run: the key is (run, level, metric, second), so a second
-- agent's — or a retried — write of the same second replaces the first, never adds to it.
CREATE TABLE IF NOT EXISTS kb_server_metrics_v1_local
(
    run_id  UUID,
    level   Float64,
    metric  LowCardinality(String),
    second  UInt32,
    fn      LowCardinality(String),
    value   Float64,
    version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, level, metric, second);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_server_metrics_v1 AS kb_server_metrics_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_server_metrics_v1_local, cityHash64(run_id));

-- 061_create_server_metric_steps_v1.sql
-- runs on: every-node
-- Per step of a run, where its server metrics came from (metrics-url, process, cgroup), the cores
-- the target may use when the source knows them (cgroup cpu.max, --cores), and what went wrong
-- while reading them ("cpu: no samples between 12:00:03 and 12:00:05 (HTTP 500)"). The newest
-- write of a step wins, like kb_server_metrics_v1's seconds.
CREATE TABLE IF NOT EXISTS kb_server_metric_steps_v1_local
(
    run_id          UUID,
    level           Float64,
    source          LowCardinality(String),
    cores_available Nullable(Float64),
    notes           Array(String),
    version         UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (run_id, level);
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_server_metric_steps_v1 AS kb_server_metric_steps_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_server_metric_steps_v1_local, cityHash64(run_id));

-- 065_create_webhooks_v1.sql
-- runs on: every-node
-- A service's webhooks (issue 29). The URL and the signing secret are kept as given: the API needs
-- them to deliver, and shows neither back (a Slack URL's path is itself a credential). A removal
-- inserts a newer version of the row with deleted_at set.
CREATE TABLE IF NOT EXISTS kb_webhooks_v1_local
(
    id            String,
    service       String,
    url           String,
    format        LowCardinality(String),
    events        Array(LowCardinality(String)),
    threshold_pct Float64,
    secret        String,
    description   String,
    created_at    DateTime64(3, 'UTC'),
    deleted_at    Nullable(DateTime64(3, 'UTC')),
    version       UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY id;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_webhooks_v1 AS kb_webhooks_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_webhooks_v1_local, cityHash64(id));

-- 066_create_webhook_deliveries_v1.sql
-- runs on: every-node
-- Every attempt to deliver a webhook notification: the delivery log the UI shows, and what tells
-- a later finish that a run was already notified (one notification per run, event and webhook).
CREATE TABLE IF NOT EXISTS kb_webhook_deliveries_v1_local
(
    webhook_id  String,
    delivery_id String,
    event       LowCardinality(String),
    run_id      Nullable(UUID),
    attempt     UInt16,
    at          DateTime64(3, 'UTC'),
    status      Nullable(UInt16),
    ok          Bool,
    error       Nullable(String),
    duration_ms Float64,
    summary     String
)
ENGINE = MergeTree
ORDER BY (webhook_id, at, delivery_id, attempt)
TTL toDateTime(at) + INTERVAL 90 DAY;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_webhook_deliveries_v1 AS kb_webhook_deliveries_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_webhook_deliveries_v1_local, cityHash64(webhook_id));

-- 070_add_request_name.sql
-- runs on: every-node
ALTER TABLE kb_requests_v1_local
    ADD COLUMN IF NOT EXISTS name LowCardinality(String) DEFAULT '';
-- runs on: every-node
ALTER TABLE kb_requests_v1
    ADD COLUMN IF NOT EXISTS name LowCardinality(String) DEFAULT '';

-- 071_create_request_name_seconds_v1.sql
-- runs on: every-node
-- The rollup per name: one row per (run, level, name, second), the columns and sketches of
-- kb_request_seconds_v1 (013), for the requests that have a name. The total rollup stays as it
-- is, so a run's curve, and every run without names, reads exactly what it read before; a
-- name's curve reads these rows (and the raw rows of its windows' edge seconds, like the total).
CREATE TABLE IF NOT EXISTS kb_request_name_seconds_v1_local
(
    run_id         UUID,
    level          Float64,
    name           LowCardinality(String),
    second         Int64,
    requests       SimpleAggregateFunction(sum, UInt64),
    ok             SimpleAggregateFunction(sum, UInt64),
    last_ts_ms     SimpleAggregateFunction(max, Float64),
    ok_latency_sum SimpleAggregateFunction(sum, Float64),
    compute_n      SimpleAggregateFunction(sum, UInt64),
    queue_n        SimpleAggregateFunction(sum, UInt64),
    other_n        SimpleAggregateFunction(sum, UInt64),
    latency        AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    compute        AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    queue          AggregateFunction(quantilesDD(0.005, 0.5), Float64),
    other          AggregateFunction(quantilesDD(0.005, 0.5), Float64)
)
ENGINE = AggregatingMergeTree
ORDER BY (run_id, level, name, second)
SETTINGS non_replicated_deduplication_window = 10000;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_request_name_seconds_v1 AS kb_request_name_seconds_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_request_name_seconds_v1_local, cityHash64(run_id, level, name, second));

-- 072_create_request_name_seconds_mv_v1.sql
-- runs on: every-node
CREATE MATERIALIZED VIEW IF NOT EXISTS kb_request_name_seconds_mv_v1_local TO kb_request_name_seconds_v1_local AS
SELECT
    run_id,
    level,
    name,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_requests_v1_local
WHERE name != ''
GROUP BY run_id, level, name, second;

-- 080_add_step_connections.sql
-- runs on: every-node
ALTER TABLE kb_steps_v1_local
    ADD COLUMN IF NOT EXISTS connections_opened   Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS handshake_p50_ms     Nullable(Float64),
    ADD COLUMN IF NOT EXISTS handshake_p99_ms     Nullable(Float64),
    ADD COLUMN IF NOT EXISTS handshake_max_ms     Nullable(Float64);
-- runs on: every-node
ALTER TABLE kb_steps_v1
    ADD COLUMN IF NOT EXISTS connections_opened   Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS handshake_p50_ms     Nullable(Float64),
    ADD COLUMN IF NOT EXISTS handshake_p99_ms     Nullable(Float64),
    ADD COLUMN IF NOT EXISTS handshake_max_ms     Nullable(Float64);

-- 090_create_request_events_v1.sql
-- runs on: every-node
-- One row per request, as kb_requests_v1 (003, 070) held them, in a third of the bytes: times in
-- integer microseconds (values are rounded half up to the µs on the way in, so an exact
-- percentile moves by at most 0.5 µs, and a window edge by the same), with a codec per column
-- chosen by measurement (bench/raw-codecs.bench.ts: the same 2M events under each candidate, one
-- merged part, compressed bytes per event from system.parts_columns; `bench` = the scale benches'
-- evenly spaced events, `jittered` = exponential gaps, two agents, three names, 1% errors):
--   ts_us      Delta+ZSTD: 0.65 B/event jittered (DoubleDelta+ZSTD 0.81, ZSTD 0.98, LZ4 3.52;
--              Float64 ms 3.58). DoubleDelta wins only on the bench's evenly spaced times (0.01
--              against 0.39), which no agent sends.
--   latency_us T64+ZSTD: 2.04 (ZSTD 2.53, T64 2.14, LZ4 3.57, Float64 ms 4.46). UInt64, not
--              UInt32: a latency may be a day (8.64e10 µs); T64 keeps only the bits a block
--              uses, so UInt64 costs the same (2.05).
--   compute_us, queue_us  Nullable(UInt64) T64+ZSTD: 2.02 (a sentinel instead of NULL: 2.41, its
--              huge value widens T64's blocks; Nullable with ZSTD alone 2.36). The null map is
--              part of that figure.
--   status     ZSTD: 0.05 (T64+ZSTD 0.08, LZ4 0.11). level Delta+ZSTD: 0.01 (constant within the
--              sort order; LZ4 0.04). run_id ZSTD: 0.01 (LZ4 0.07). agent_id, name
--              LowCardinality+ZSTD: 0.20 and 0.26 (LZ4 0.50 and 0.55).
-- The ALIAS columns give every reader milliseconds as before (µs / 1000, Float64); filters on
-- ts_ms prune by the sort key like filters on ts_us. The deduplication window is kb_requests_v1's:
-- a retried insert with the same insert_deduplication_token (the batch id) is a no-op.
CREATE TABLE IF NOT EXISTS kb_request_events_v1_local
(
    run_id     UUID CODEC(ZSTD(1)),
    level      Float64 CODEC(Delta, ZSTD(1)),
    agent_id   LowCardinality(String) CODEC(ZSTD(1)),
    ts_us      Int64 CODEC(Delta, ZSTD(1)),
    latency_us UInt64 CODEC(T64, ZSTD(1)),
    compute_us Nullable(UInt64) CODEC(T64, ZSTD(1)),
    queue_us   Nullable(UInt64) CODEC(T64, ZSTD(1)),
    status     UInt16 CODEC(ZSTD(1)),
    name       LowCardinality(String) CODEC(ZSTD(1)),
    ts_ms      Float64 ALIAS ts_us / 1000,
    latency_ms Float64 ALIAS latency_us / 1000,
    compute_ms Nullable(Float64) ALIAS compute_us / 1000,
    queue_ms   Nullable(Float64) ALIAS queue_us / 1000
)
ENGINE = MergeTree
ORDER BY (run_id, level, ts_us)
SETTINGS non_replicated_deduplication_window = 10000;
-- runs on: every-node
CREATE TABLE IF NOT EXISTS kb_request_events_v1 AS kb_request_events_v1_local
ENGINE = Distributed(kneeboard, currentDatabase(), kb_request_events_v1_local, cityHash64(run_id, agent_id, ts_us));

-- 091_move_requests_to_request_events_v1.sql
-- runs on: each-shard
TRUNCATE TABLE IF EXISTS kb_request_events_v1_local;
-- runs on: each-shard
INSERT INTO kb_request_events_v1_local (run_id, level, agent_id, ts_us, latency_us, compute_us, queue_us, status, name)
SETTINGS insert_deduplicate = 0
SELECT
    run_id,
    level,
    agent_id,
    toInt64(floor(ts_ms * 1000 + 0.5)),
    toUInt64(floor(latency_ms * 1000 + 0.5)),
    toUInt64(floor(compute_ms * 1000 + 0.5)),
    toUInt64(floor(queue_ms * 1000 + 0.5)),
    status,
    name
FROM kb_requests_v1_local;

-- 092_drop_request_seconds_mvs_v1.sql
-- runs on: every-node
DROP VIEW IF EXISTS kb_request_seconds_mv_v1_local;
-- runs on: every-node
DROP VIEW IF EXISTS kb_request_name_seconds_mv_v1_local;

-- 093_create_request_seconds_from_events_mv_v1.sql
-- runs on: every-node
CREATE MATERIALIZED VIEW IF NOT EXISTS kb_request_seconds_from_events_mv_v1_local TO kb_request_seconds_v1_local AS
SELECT
    run_id,
    level,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_request_events_v1_local
GROUP BY run_id, level, second;

-- 094_create_request_name_seconds_from_events_mv_v1.sql
-- runs on: every-node
CREATE MATERIALIZED VIEW IF NOT EXISTS kb_request_name_seconds_from_events_mv_v1_local TO kb_request_name_seconds_v1_local AS
SELECT
    run_id,
    level,
    name,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_request_events_v1_local
WHERE name != ''
GROUP BY run_id, level, name, second;

-- 095_empty_requests_v1.sql
-- runs on: each-shard
TRUNCATE TABLE IF EXISTS kb_requests_v1_local;

-- 100_split_request_seconds_by_name.sql
-- runs on: every-node
DROP VIEW IF EXISTS kb_request_seconds_from_events_mv_v1_local;
-- runs on: every-node
CREATE MATERIALIZED VIEW IF NOT EXISTS kb_request_seconds_unnamed_mv_v1_local TO kb_request_seconds_v1_local AS
SELECT
    run_id,
    level,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_request_events_v1_local
WHERE name = ''
GROUP BY run_id, level, second;
-- runs on: each-shard
DELETE FROM kb_request_seconds_v1_local WHERE run_id IN (SELECT DISTINCT run_id FROM kb_request_name_seconds_v1_local);
-- runs on: each-shard
INSERT INTO kb_request_seconds_v1_local
SETTINGS insert_deduplicate = 0
SELECT
    run_id,
    level,
    toInt64(floor(ts_ms / 1000)) AS second,
    count() AS requests,
    countIf(status BETWEEN 1 AND 399) AS ok,
    max(ts_ms) AS last_ts_ms,
    sumIf(latency_ms, status BETWEEN 1 AND 399) AS ok_latency_sum,
    countIf(status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute_n,
    countIf(status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue_n,
    countIf(status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other_n,
    quantilesDDStateIf(0.005, 0.5)(latency_ms * 1e6, status BETWEEN 1 AND 399) AS latency,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(compute_ms) * 1e6, status BETWEEN 1 AND 399 AND compute_ms IS NOT NULL) AS compute,
    quantilesDDStateIf(0.005, 0.5)(assumeNotNull(queue_ms) * 1e6, status BETWEEN 1 AND 399 AND queue_ms IS NOT NULL) AS queue,
    quantilesDDStateIf(0.005, 0.5)((latency_ms - ifNull(compute_ms, 0) - ifNull(queue_ms, 0)) * 1e6,
                                   status BETWEEN 1 AND 399 AND (compute_ms IS NOT NULL OR queue_ms IS NOT NULL)) AS other
FROM kb_request_events_v1_local
WHERE name = '' AND run_id IN (SELECT DISTINCT run_id FROM kb_request_name_seconds_v1_local)
GROUP BY run_id, level, second;
