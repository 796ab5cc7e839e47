-- API tokens. Only the SHA-256 of a token is stored: tokens are 256 random bits, so a fast hash
-- cannot be reversed or guessed, and it can be looked up on every request (a slow password hash
-- protects low-entropy secrets, which these are not). `id` is the token's public prefix, for
-- listing and revoking. A revocation inserts a newer version of the row.
CREATE TABLE IF NOT EXISTS kb_tokens_v1
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
ORDER BY id
