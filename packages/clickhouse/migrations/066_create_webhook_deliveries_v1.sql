-- Every attempt to deliver a webhook notification: the delivery log the UI shows, and what tells
-- a later finish that a run was already notified (one notification per run, event and webhook).
CREATE TABLE IF NOT EXISTS kb_webhook_deliveries_v1
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
TTL toDateTime(at) + INTERVAL 90 DAY
