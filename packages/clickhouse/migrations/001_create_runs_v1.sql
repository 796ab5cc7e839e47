-- One row per run version: status changes insert a newer version, reads use FINAL.
CREATE TABLE IF NOT EXISTS kb_runs_v1
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
ORDER BY id
