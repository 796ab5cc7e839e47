-- A service's webhooks (issue 29). The URL and the signing secret are kept as given: the API needs
-- them to deliver, and shows neither back (a Slack URL's path is itself a credential). A removal
-- inserts a newer version of the row with deleted_at set.
CREATE TABLE IF NOT EXISTS kb_webhooks_v1
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
ORDER BY id
