-- Every accepted event batch, so a batch re-sent long after its insert is still recognised.
CREATE TABLE IF NOT EXISTS kb_batches_v1
(
    run_id      UUID,
    batch_id    String,
    agent_id    LowCardinality(String),
    events      UInt32,
    received_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (run_id, batch_id)
